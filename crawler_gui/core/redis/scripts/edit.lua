-- edit(op, ...): the small GUI edits, each atomic.
--   refresh_hub url1 url2 | retry_now url1 url2 | give_up url1 url2 -> 1 / 0
--   set_delay host seconds -> 1
--   pause host 1|0 -> 1 (a paused host is not dispatched; resumed, its hubs are due again)
--   host_delay host seconds delay basis next_allowed le md na dl db -> 1, or 0 (nothing
--     changed) when the host's last response time, Crawl-delay, next allowed time or delay
--     are no longer le md na dl db: the user's minimum delay (< 0 removes it), and the delay
--     in force with its basis and the next allowed time, as the worker made them again from
--     those inputs (pool_rules.host_delay_and_basis)
--   forget host limit -> how many waiting URLs of the host were dropped (at most limit)
--   seen [final_url final_host depth referrer]* -> 1 (the final URLs of redirect chains
--     whose results were recorded in another key group: done, never fetched again)
--   plan [url planned reason expected_due new_due]* -> 1 (the refresh plan a worker computed:
--     each hub's span and its reason; a hub waiting on its span, its due time still
--     expected_due, moves to new_due ('' = stays))
-- url2 is the canonical form of url1 (or '').
local OP = ARGV[4]
local function pick(zkey, hkey)
  for _, u in ipairs({ARGV[5], ARGV[6]}) do
    if u ~= '' then
      if zkey and redis.call('ZSCORE', zkey, u) then return u end
      if hkey and redis.call('HEXISTS', hkey, u) == 1 then return u end
    end
  end
  return nil
end
local result = 0
if OP == 'refresh_hub' then
  local url = pick(nil, K_HUBS)
  if url then
    local hub = get_hub(url)
    if hub.infl == 0 then
      hub.due = NOW
      hub.parked = '' -- the user asked: a parked hub gets its chances again
      hub.crashes = 0
      put_hub(url, hub)
      arm_hub(url, NOW, host(hub.host))
      bump()
    end
    result = 1
  end
elseif OP == 'retry_now' then
  local url = pick(K_RETRY, nil)
  if url then
    redis.call('ZADD', K_RETRY, fmt(NOW), url)
    release_due_retries()
    result = 1
  end
elseif OP == 'give_up' then
  local url = pick(K_RETRY, nil)
  if url then
    redis.call('ZREM', K_RETRY, url)
    redis.call('HDEL', K_RDATA, url)
    local raw = redis.call('HGET', K_URL, url)
    local u = raw and urec(raw) or {depth = 0, att = 0, seq = 0, extra = ''}
    put_url(url, 'F', u.depth, u.att, u.seq, NOW, u.extra)
    local h = host(host_of(url))
    h.retr = h.retr - 1
    h.fail = h.fail + 1
    tot('tr', -1)
    tot('tf', 1)
    dirty(h)
    result = 1
  end
elseif OP == 'seen' then
  for j = 5, #ARGV, 4 do
    mark_seen(ARGV[j], ARGV[j + 1], tonumber(ARGV[j + 2]), ARGV[j + 3])
  end
  result = 1
elseif OP == 'plan' then
  for j = 5, #ARGV - 4, 5 do
    local url = ARGV[j]
    local hub = get_hub(url)
    if hub then
      hub.planned, hub.reason = tonumber(ARGV[j + 1]), ARGV[j + 2]
      if ARGV[j + 4] ~= '' and hub.infl == 0 and hub.parked == ''
          and fmt(hub.due) == ARGV[j + 3] then
        hub.due = tonumber(ARGV[j + 4])
        arm_hub(url, hub.due, host(hub.host))
      end
      put_hub(url, hub)
    end
  end
  bump()
  result = 1
elseif OP == 'pause' then
  local h = host(ARGV[5])
  local paused = tonumber(ARGV[6])
  if h.pa ~= paused then
    h.pa = paused
    dirty(h)
    if paused == 0 then -- pop dropped its hubs from the due set while it was paused
      local all = redis.call('HGETALL', K_HUBS)
      for j = 1, #all, 2 do
        local hub = get_hub(all[j])
        if hub.host == h.name and hub.infl == 0 and hub.parked == '' then
          arm_hub(all[j], hub.due, h)
        end
      end
    end
  end
  result = 1
elseif OP == 'host_delay' then
  local h = host(ARGV[5])
  if h.le == tonumber(ARGV[10]) and h.md == tonumber(ARGV[11]) and h.na == tonumber(ARGV[12])
      and h.dl == tonumber(ARGV[13]) and h.db == ARGV[14] then
    local s = tonumber(ARGV[6])
    if s < 0 then s = -1 end
    h.ud = s
    h.dl, h.db, h.na = tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9])
    dirty(h)
    result = 1
  end
elseif OP == 'forget' then
  local h = host(ARGV[5])
  local urls = redis.call('ZRANGE', kq(h.name), 0, tonumber(ARGV[6]) - 1)
  for _, url in ipairs(urls) do
    redis.call('HDEL', K_URL, url)
  end
  if #urls > 0 then
    redis.call('ZREM', kq(h.name), unpack(urls))
    h.wait = h.wait - #urls
    tot('tw', -#urls)
  end
  if #urls == 0 and h.wait ~= 0 then -- counters that disagree with the queue: trust it
    tot('tw', -h.wait)
    h.wait = 0
  end
  dirty(h)
  result = #urls
elseif OP == 'set_delay' then
  local h = host(ARGV[5])
  local s = tonumber(ARGV[6])
  if s < 0 then s = 0 end
  h.md = s
  dirty(h)
  result = 1
end
flush()
return result
