-- pop(count, hub_quota, expires, worker, failure_threshold) -> flat list of
-- (url, host, depth, is_hub, referrer) for every lease given.
local COUNT = tonumber(ARGV[4])
local QUOTA = tonumber(ARGV[5])
local EXP = tonumber(ARGV[6])
local WORKER = ARGV[7]
local THRESH = tonumber(ARGV[8])

reclaim_expired(THRESH)
release_due_retries()
-- hosts given URLs back are ready now; hosts whose wait has ended take their held hubs back
for _, name in ipairs(redis.call('ZRANGEBYSCORE', K_HELD, '-inf', fmt(NOW))) do
  held_check(host(name))
end
local held = redis.call('EXISTS', K_HELD) == 1
for _, h in ipairs(DORDER) do
  schedule(h)
  if held then held_check(h) end
end

local out = {}
local n = 0
local function lease(url, h, depth, seq, is_hub, extra)
  redis.call('HSET', K_LDATA, url, h.name .. TAB .. fmt(depth) .. TAB .. fmt(seq) .. TAB
    .. (is_hub and '1' or '0') .. TAB .. fmt(NOW) .. TAB .. fmt(EXP) .. TAB .. WORKER)
  redis.call('ZADD', K_LEASE, fmt(EXP), url)
  h.infl = h.infl + 1
  dirty(h)
  n = n + 1
  out[#out + 1] = url
  out[#out + 1] = h.name
  out[#out + 1] = fmt(depth)
  out[#out + 1] = is_hub and '1' or '0'
  out[#out + 1] = extra or ''
end

-- 1. due hubs first, at most QUOTA of them, one per free host
if QUOTA > 0 then
  local due = redis.call('ZRANGEBYSCORE', K_HUBDUE, '-inf', fmt(NOW))
  for _, url in ipairs(due) do
    if n >= QUOTA then break end
    local hub = get_hub(url)
    if not hub or hub.infl ~= 0 or hub.parked ~= '' then
      redis.call('ZREM', K_HUBDUE, url)
    else
      local h = host(hub.host)
      if h.pa == 1 then
        redis.call('ZREM', K_HUBDUE, url) -- its host is paused: back when it is resumed
      elseif can_take(h) then
        hub.infl = 1
        put_hub(url, hub)
        redis.call('ZREM', K_HUBDUE, url)
        lease(url, h, 0, 0, true, '')
      else
        hold_hub(url, hub.due, h) -- until its host can take it: not due meanwhile
      end
    end
  end
end

-- 2. one URL per ready host; the host asked longest ago goes first. The ready set is not
-- changed during the walk (offsets stay valid); flush() reschedules every touched host.
local offset = 0
while n < COUNT do
  local names = redis.call('ZRANGEBYSCORE', K_READY, '-inf', fmt(NOW), 'LIMIT', offset, COUNT - n)
  if #names == 0 then break end
  offset = offset + #names
  for _, name in ipairs(names) do
    if n >= COUNT then break end
    local h = host(name)
    if h.wait <= 0 or h.infl >= MAX_IF or allowed(h) > NOW or h.pa == 1 then
      dirty(h)
    else
      local head = redis.call('ZRANGE', kq(name), 0, 0)
      if #head == 0 then
        redis.log(redis.LOG_WARNING, 'crawler-gui: host ' .. name .. ' counted waiting URLs but its queue is empty')
        tot('tw', -h.wait)
        h.wait = 0
        dirty(h)
      else
        local url = head[1]
        redis.call('ZREM', kq(name), url)
        local raw = redis.call('HGET', K_URL, url)
        local u = raw and urec(raw) or {depth = 0, seq = 0, att = 0, extra = ''}
        h.wait = h.wait - 1
        tot('tw', -1)
        lease(url, h, u.depth, u.seq, false, u.extra)
      end
    end
  end
end

flush()
return out
