-- The release, under the fence: the record goes, its fence counter stays (kept for another full term), and a
-- receipt with the call's nonce stays for a short while, so that the same call re-sent by the client after a
-- lost reply (see claim.lua) is answered "done" instead of "absent".
-- KEYS: record hash, fence counter, lease index, release receipt
-- ARGV: now (unused), member, fence, counter expiry (ms), the call's nonce, receipt expiry (ms)
-- Reply: {} done, {why} refused
if redis.call('GET', KEYS[4]) == ARGV[5] then
  return {}
end
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
keep_counter(KEYS[2], ARGV[3], ARGV[4])
redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
return {}
