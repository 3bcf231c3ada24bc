-- export(part, cursor, count) -> one bounded, read-only chunk of the pool (save_snapshot):
-- {next cursor ('0' when the part is done), urls [url, rec]*, retry [url, next_try]*,
--  retry errors [url, error]*, hubs [url, rec]*, hosts [name, min_delay, backoff_until]*,
--  leased page URLs}
-- part 'urls': one HSCAN step over the URL hash (COUNT count), with the retry data and the lease
-- flag of those URLs; 'hubs': one HSCAN step over the hub hash; 'hosts': count hosts from the
-- rank in cursor. Each call blocks the server for a few milliseconds, never for the whole pool.
local PART, CURSOR, COUNT = ARGV[4], ARGV[5], tonumber(ARGV[6])
local urls, retry, rdata, hubs, hosts, leased = {}, {}, {}, {}, {}, {}
local nxt = '0'
if PART == 'urls' then
  local r = redis.call('HSCAN', K_URL, CURSOR, 'COUNT', COUNT)
  nxt = r[1]
  local kv = r[2]
  for j = 1, #kv, 2 do
    local url = kv[j]
    urls[#urls + 1] = url
    urls[#urls + 1] = kv[j + 1]
    local score = redis.call('ZSCORE', K_RETRY, url)
    if score then
      retry[#retry + 1] = url
      retry[#retry + 1] = score
      rdata[#rdata + 1] = url
      rdata[#rdata + 1] = redis.call('HGET', K_RDATA, url) or ''
    end
    local lrec = redis.call('HGET', K_LDATA, url)
    if lrec and split(lrec, 7)[4] ~= '1' then leased[#leased + 1] = url end
  end
elseif PART == 'hubs' then
  local r = redis.call('HSCAN', K_HUBS, CURSOR, 'COUNT', COUNT)
  nxt = r[1]
  hubs = r[2]
elseif PART == 'hosts' then
  local start = tonumber(CURSOR)
  local names = redis.call('ZRANGE', K_HOSTS, start, start + COUNT - 1)
  for _, name in ipairs(names) do
    local v = redis.call('HMGET', kh(name), 'md', 'bo', 'pa', 'ud')
    hosts[#hosts + 1] = name
    hosts[#hosts + 1] = v[1] or '0'
    hosts[#hosts + 1] = v[2] or '0'
    hosts[#hosts + 1] = v[3] or '0'
    hosts[#hosts + 1] = v[4] or '-1'
  end
  if #names == COUNT then nxt = tostring(start + COUNT) end
end
return {nxt, urls, retry, rdata, hubs, hosts, leased}
