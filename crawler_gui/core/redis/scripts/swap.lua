-- swap(staging_prefix) -> 1, or an error 'BUSY n' when URLs are in flight.
-- Replaces the pool's keys by the staging keys built by load_snapshot, in one atomic step.
-- Keeps the paused flag; raises the version (every host row changes) and the generation.
local S = ARGV[4]
local busy = redis.call('HLEN', K_LDATA)
if busy > 0 then return redis.error_reply('BUSY ' .. busy) end
local meta = redis.call('HMGET', K_META, 'version', 'generation', 'paused', 'schema')
local function globals(prefix)
  return {prefix .. 'meta', prefix .. 'url', prefix .. 'ready', prefix .. 'lease',
    prefix .. 'ldata', prefix .. 'retry', prefix .. 'rdata', prefix .. 'hubs',
    prefix .. 'hubdue', prefix .. 'hosts', prefix .. 'refused', prefix .. 'refusals',
    prefix .. 'held'}
end
for _, name in ipairs(redis.call('ZRANGE', K_HOSTS, 0, -1)) do
  redis.call('UNLINK', kq(name), kh(name), khold(name))
end
for _, k in ipairs(globals(P)) do redis.call('UNLINK', k) end
local names = redis.call('ZRANGE', S .. 'hosts', 0, -1)
local function move(from, to)
  if redis.call('EXISTS', from) == 1 then
    redis.call('RENAME', from, to)
    redis.call('PERSIST', to)
  end
end
for _, name in ipairs(names) do
  move(S .. 'q:{' .. name .. '}', kq(name))
  move(S .. 'h:{' .. name .. '}', kh(name))
end
local live = globals(P)
for j, k in ipairs(globals(S)) do move(k, live[j]) end
local version = (tonumber(meta[1]) or 0) + 1
redis.call('HSET', K_META, 'version', version, 'generation', (tonumber(meta[2]) or 0) + 1)
-- the pool-wide fields live here only on a single-group pool (see docs/redis.md)
if meta[3] then redis.call('HSET', K_META, 'paused', meta[3]) end
if meta[4] then redis.call('HSET', K_META, 'schema', meta[4]) end
for _, name in ipairs(names) do redis.call('ZADD', K_HOSTS, version, name) end
return 1
