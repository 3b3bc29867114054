-- One step of a listing: the members of one index (a shard's lease or completion index) after a position, in
-- the index's order (score, then member), those of one scope only when a member prefix is given. Looks at no
-- more than ARGV[7] entries, so that a scope with few records in a large index costs bounded work per call.
-- KEYS: the index
-- ARGV: now (µs or ''), range ('due': score <= now, 'live': score > now, 'all'), after score ('' from the start),
--       after member, how many members at most, member prefix ('' for every scope), most entries to look at
-- Reply: {now (µs), {member, score, …}, last score looked at or '', last member looked at or '', 1 if the
--         index has nothing after the last entry looked at, else 0, how many entries were looked at}
local cutoff = now_us(clock_us())
local range, after_score, after_member = ARGV[2], ARGV[3], ARGV[4]
local want, prefix, budget = tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local min, max = '-inf', '+inf'
if range == 'due' then
  max = fmt(cutoff)
elseif range == 'live' then
  min = '(' .. fmt(cutoff)
end
if after_score ~= '' and (range ~= 'live' or tonumber(after_score) > cutoff) then
  min = after_score
end
local out, looked = {}, 0
local last_score, last_member = '', ''
local offset, done = 0, 0
while #out < 2 * want and looked < budget do
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], min, max, 'WITHSCORES', 'LIMIT', offset, 128)
  if #page == 0 then
    done = 1
    break
  end
  offset = offset + #page / 2
  for i = 1, #page, 2 do
    local m, s = page[i], page[i + 1]
    local past = after_score == '' or tonumber(s) > tonumber(after_score)
      or (tonumber(s) == tonumber(after_score) and m > after_member)
    if past then
      looked = looked + 1
      last_score, last_member = s, m
      if prefix == '' or string.sub(m, 1, #prefix) == prefix then
        out[#out + 1] = m
        out[#out + 1] = s
      end
      if #out >= 2 * want or looked >= budget then
        break
      end
    end
  end
end
return {fmt(cutoff), out, last_score, last_member, done, looked}
