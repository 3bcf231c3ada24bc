-- next_due(hubs) -> when something next becomes poppable ('' when nothing is waiting); read
-- only. ARGV[4] = '1': hubs count, '0': left out (the caller's pops take no hubs)
local HUBS = ARGV[4] ~= '0'
local nd = {}
local ready = redis.call('ZRANGE', K_READY, 0, 0, 'WITHSCORES')
if #ready > 0 then nd[#nd + 1] = math.max(tonumber(ready[2]), NOW) end
local heaps = {K_RETRY, K_LEASE}
if HUBS then heaps[#heaps + 1] = K_HUBDUE end
for _, k in ipairs(heaps) do
  local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  if #first > 0 then nd[#nd + 1] = tonumber(first[2]) end
end
-- hosts holding due hubs: when their wait ends (not while they are busy: '+inf')
if HUBS then
  local held = redis.call('ZRANGEBYSCORE', K_HELD, '-inf', '(+inf', 'LIMIT', 0, 1, 'WITHSCORES')
  if #held > 0 then nd[#nd + 1] = math.max(tonumber(held[2]), NOW) end
end
if #nd == 0 then return '' end
return fmt(math.min(unpack(nd)))
