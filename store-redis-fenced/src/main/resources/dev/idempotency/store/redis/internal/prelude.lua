-- Shared by every script of the store (the store sends it in front of each): time, number formatting and
-- the fence check of the fenced writes.
--
-- Times are epoch microseconds. ARGV[1] is the engine's now, or '' when the store judges time by the server's
-- clock: then every decision of the script uses Redis' TIME, read once, inside the script, so that all of it
-- sees one instant. Lua numbers are doubles, exact for integers up to 2^53 (epoch microseconds until the year
-- 2255), and every number handed to Redis is formatted by fmt, never left to Redis' own number conversion.
local function clock_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function fmt(n)
  return string.format('%.0f', n)
end

local function now_us(clock)
  if ARGV[1] == '' then
    return clock
  end
  return tonumber(ARGV[1])
end

-- nil when the record at key rec is in flight under fence f (a decimal string); else what was found
local function refusal(rec, f)
  local r = redis.call('HMGET', rec, 's', 'f')
  if not r[1] then
    return 'absent'
  end
  if r[1] ~= 'I' then
    return 'record is COMPLETE'
  end
  if r[2] ~= f then
    return 'record is IN_FLIGHT with fence#' .. r[2]
  end
  return nil
end

-- Keeps the fence counter at ctr alive for px ms and never below fence f (a decimal string): every write of an
-- owner renews it, so the counter lives as long as its record and a retention beyond, however long the record
-- is renewed; and a counter already gone (an expiry, an eviction) comes back with the record's fence.
local function keep_counter(ctr, f, px)
  local c = redis.call('GET', ctr)
  if c and tonumber(c) > tonumber(f) then
    f = c
  end
  redis.call('SET', ctr, f, 'PX', px)
end

-- Sets the record at rec to expire in px ms (a decimal string), or later while a person keeps it: its field k
-- (epoch µs, see extend.lua) minus now (µs), so that Redis does not drop a record the reaper keeps.
local function expire(rec, px, now)
  local k = redis.call('HGET', rec, 'k')
  if k then
    local held = math.ceil((tonumber(k) - now) / 1000)
    if held > tonumber(px) then
      px = fmt(held)
    end
  end
  redis.call('PEXPIRE', rec, px)
end
