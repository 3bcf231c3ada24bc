-- export() -> the whole pool, read in one atomic step (save_snapshot); read only.
-- {urls (HGETALL), retry (ZRANGE WITHSCORES), retry errors (HGETALL), hubs (HGETALL),
--  hosts [name, min_delay, backoff_until]*, leased page URLs}
local hosts = {}
for _, name in ipairs(redis.call('ZRANGE', K_HOSTS, 0, -1)) do
  local v = redis.call('HMGET', kh(name), 'md', 'bo')
  hosts[#hosts + 1] = name
  hosts[#hosts + 1] = v[1] or '0'
  hosts[#hosts + 1] = v[2] or '0'
end
local leased = {}
local all = redis.call('HGETALL', K_LDATA)
for j = 1, #all, 2 do
  local f = split(all[j + 1], 7)
  if f[4] ~= '1' then leased[#leased + 1] = all[j] end
end
return {redis.call('HGETALL', K_URL), redis.call('ZRANGE', K_RETRY, 0, -1, 'WITHSCORES'),
  redis.call('HGETALL', K_RDATA), redis.call('HGETALL', K_HUBS), hosts, leased}
