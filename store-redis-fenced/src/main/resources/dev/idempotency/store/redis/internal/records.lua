-- Reads records: for each record hash of KEYS its fields as snapshots need them (nil where absent). A script
-- rather than HMGET so that it runs on the primary even when the connection reads from replicas.
-- KEYS: record hashes
-- ARGV: now (unused)
-- Reply: {{s, fp, f, g, l, rp, rd, c, st, h, b}, …} in the order of KEYS
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HMGET', KEYS[i], 's', 'fp', 'f', 'g', 'l', 'rp', 'rd', 'c', 'st', 'h', 'b')
end
return out
