-- set_hubs([url, host, span]*) -> number of hubs added
local wanted = {}
local order = {}
for j = 4, #ARGV, 3 do
  wanted[ARGV[j]] = {host = ARGV[j + 1], span = tonumber(ARGV[j + 2])}
  order[#order + 1] = ARGV[j]
end
for _, url in ipairs(redis.call('HKEYS', K_HUBS)) do
  if not wanted[url] then
    redis.call('HDEL', K_HUBS, url)
    redis.call('ZREM', K_HUBDUE, url)
  end
end
local added = 0
for _, url in ipairs(order) do
  local w = wanted[url]
  local hub = get_hub(url)
  if not hub then
    hub = {host = w.host, span = w.span, last = 0, due = 0, infl = 0, res = ''}
    put_hub(url, hub)
    redis.call('ZADD', K_HUBDUE, 0, url)
    dirty(host(w.host))
    added = added + 1
  elseif hub.span ~= w.span then
    hub.span = w.span
    hub.planned = w.span -- the next plan shares the new budget
    if hub.last ~= 0 then
      hub.due = hub.last + w.span
      if hub.infl == 0 and hub.parked == '' then
        redis.call('ZADD', K_HUBDUE, fmt(hub.due), url)
      end
    end
    put_hub(url, hub)
  end
end
bump()
flush()
return added
