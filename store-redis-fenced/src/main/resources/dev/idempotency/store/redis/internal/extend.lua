-- A person's extension of a record's retention, under the fence: the field k (epoch µs, the later instant wins)
-- keeps the record from the reaper (reap.lua) until then, and the keys' expiries move so that Redis does not drop
-- the record, nor its fence counter, first. Nothing else changes: not the state, the lease, the recovery point,
-- the response, nor the record's places in the indexes. Applied twice (a re-sent script) it is the same as once.
-- KEYS: record hash, fence counter
-- ARGV: now (µs or ''), fence, keep until (µs), how long the counter outlives its record (ms)
-- Reply: {} done, {why} refused
local r = redis.call('HMGET', KEYS[1], 's', 'f', 'k')
if not r[1] then
  return {'absent'}
end
if r[2] ~= ARGV[2] then
  local state = 'IN_FLIGHT'
  if r[1] == 'C' then
    state = 'COMPLETE'
  end
  return {'record is ' .. state .. ' with fence#' .. r[2]}
end
local keep = tonumber(ARGV[3])
if r[3] and tonumber(r[3]) > keep then
  keep = tonumber(r[3])
end
redis.call('HSET', KEYS[1], 'k', fmt(keep))
local held = math.ceil((keep - now_us(clock_us())) / 1000)
if redis.call('PTTL', KEYS[1]) < held then
  redis.call('PEXPIRE', KEYS[1], fmt(held))
end
local counter = held + tonumber(ARGV[4])
local ttl = redis.call('PTTL', KEYS[2])
if ttl >= 0 and ttl < counter then
  redis.call('PEXPIRE', KEYS[2], fmt(counter))
end
return {}
