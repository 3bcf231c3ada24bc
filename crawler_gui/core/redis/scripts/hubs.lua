-- set_hubs([url, host, span]*) -> number of hubs added
local wanted = {}
local order = {}
for j = 4, #ARGV, 3 do
  wanted[ARGV[j]] = {host = ARGV[j + 1], span = tonumber(ARGV[j + 2])}
  order[#order + 1] = ARGV[j]
end
for _, url in ipairs(redis.call('HKEYS', K_HUBS)) do
  if not wanted[url] then
    local hn = get_hub(url).host
    redis.call('HDEL', K_HUBS, url)
    redis.call('ZREM', K_HUBDUE, url)
    if redis.call('ZREM', khold(hn), url) == 1 and redis.call('EXISTS', khold(hn)) == 0 then
      redis.call('ZREM', K_HELD, hn) -- its last held hub: nothing to wake up for
    end
  end
end
local added = 0
for _, url in ipairs(order) do
  local w = wanted[url]
  local hub = get_hub(url)
  if not hub then
    hub = {host = w.host, span = w.span, last = 0, due = 0, infl = 0, res = ''}
    put_hub(url, hub)
    local h = host(w.host)
    arm_hub(url, 0, h)
    dirty(h)
    added = added + 1
  elseif hub.span ~= w.span then
    hub.span = w.span
    hub.planned = w.span -- the next plan shares the new budget
    if hub.last ~= 0 then
      hub.due = hub.last + w.span
      if hub.infl == 0 and hub.parked == '' then
        arm_hub(url, hub.due, host(hub.host))
      end
    end
    put_hub(url, hub)
  end
end
bump()
flush()
return added
