-- snapshot(since, retry_limit) -> {version, totals, refused, hosts, leases, retrying, hubs,
-- next_due, host_count}; read only. Floats as strings.
local SINCE = tonumber(ARGV[4])
local LIMIT = tonumber(ARGV[5])
local meta = redis.call('HMGET', K_META, 'version', 'tw', 'td', 'tf', 'tr', 'tx', 'overflow',
  'tn')
local names
if SINCE < 0 then
  names = redis.call('ZRANGE', K_HOSTS, 0, -1)
else
  names = redis.call('ZRANGEBYSCORE', K_HOSTS, '(' .. SINCE, '+inf')
end
local hosts = {}
for _, name in ipairs(names) do
  local v = redis.call('HMGET', kh(name), 'wait', 'infl', 'done', 'fail', 'retr', 'ls',
    'na', 'bo', 'dl', 'le', 'md', 'ud', 'pa', 'bs', 'ra', 'db')
  hosts[#hosts + 1] = {name, v[1] or '0', v[2] or '0', v[3] or '0', v[4] or '0', v[5] or '0',
    v[6] or '', v[7] or '0', v[8] or '0', v[9] or '0', v[10] or '0', v[11] or '0',
    v[12] or '-1', v[13] or '0', v[14] or '', v[15] or '0', v[16] or ''}
end
local retrying = {}
local r = {}
if LIMIT > 0 then  -- ZRANGE 0 -1 would mean "all"
  r = redis.call('ZRANGE', K_RETRY, 0, LIMIT - 1, 'WITHSCORES')
end
for j = 1, #r, 2 do
  local raw = redis.call('HGET', K_URL, r[j])
  local u = raw and urec(raw) or {depth = 0, att = 0}
  retrying[#retrying + 1] = {r[j], fmt(u.depth), fmt(u.att),
    redis.call('HGET', K_RDATA, r[j]) or '', r[j + 1], fmt(u.t or 0)}
end
local nd = {}
local ready = redis.call('ZRANGE', K_READY, 0, 0, 'WITHSCORES')
if #ready > 0 then nd[#nd + 1] = math.max(tonumber(ready[2]), NOW) end
for _, k in ipairs({K_RETRY, K_LEASE, K_HUBDUE}) do
  local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  if #first > 0 then nd[#nd + 1] = tonumber(first[2]) end
end
-- hosts holding due hubs: when their wait ends (not while they are busy: '+inf')
local held = redis.call('ZRANGEBYSCORE', K_HELD, '-inf', '(+inf', 'LIMIT', 0, 1, 'WITHSCORES')
if #held > 0 then nd[#nd + 1] = math.max(tonumber(held[2]), NOW) end
local next_due = ''
if #nd > 0 then next_due = fmt(math.min(unpack(nd))) end
return {meta[1] or '0', {meta[2] or '0', meta[3] or '0', meta[4] or '0', meta[5] or '0',
  meta[6] or '0', meta[7] or '0', meta[8] or '0'}, redis.call('HGETALL', K_REFUSED), hosts,
  redis.call('HGETALL', K_LDATA), retrying, redis.call('HGETALL', K_HUBS), next_due,
  redis.call('ZCARD', K_HOSTS)}
