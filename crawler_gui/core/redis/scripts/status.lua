-- set_status(threshold, schedule, ask, [url, canonical, outcome, last_status, elapsed, delay,
--   delay_basis, crawl_delay, user_delay, throttle, error_text, label, hub_due, hub_fails,
--   final_url, final_host, redirect_to, failure, refusal, final_here, hub_planned, hub_reason,
--   hub_rate, retry_after]*)
-- The rules are the worker's (core/pool_rules.py); this script only applies their values:
-- delay, delay_basis: the host's politeness delay after this response and the term that made
-- it (pool_rules.host_delay_and_basis), computed from the host's Crawl-delay and user delay as
-- the worker read them (crawl_delay, user_delay);
-- schedule: the retry delays after 1, 2, ... failures, space-separated, the last repeating
-- (pool_rules.retry_schedule; the URL's attempt count lives here, so the script looks its delay
-- up); throttle: the 429/503 delay (RetryPolicy.throttle_delay); hub_due, hub_fails: a hub
-- refresh's next due time and its failures in a row (pool_rules.hub_next_due, from the hub
-- record the worker read; '' when it did not know the URL for a hub's).
-- ask: '1' = a result computed from what is no longer so (the host's Crawl-delay or user delay
-- changed since the worker read them, or a hub's result without hub_due) is not taken: its URL
-- is returned (below) for the worker to read again and send it once more; '0' (that second
-- time) = the values are applied as they come (a hub without hub_due is due now).
-- outcome: D done, F failed, N refused by policy, X redirected, R retry, T throttled.
-- failure: what a failed URL keeps after its referrer (NUL status NUL reason NUL message);
-- refusal: reason TAB redirect target, for the refusal index.
-- final_here: '1' when final_url's host is in this script's key group (always on a single
-- group); otherwise the final URL is returned to be marked in its own group ('seen' edit).
-- hub_planned, hub_reason, hub_rate: a hub refresh that reported its new links: the span, its
-- reason and the rate state the worker computed from them ('' when none: the hub keeps its own).
-- retry_after: '1' when a 429/503's wait came from its Retry-After header.
-- -> {ignored urls..., '', [redirect_to, depth, url]*, '', [final_url, final_host, depth, url]*,
--     '', urls of the results not taken (ask = '1')...}
local THRESH = tonumber(ARGV[4])
local SCHEDULE = {}
for d in string.gmatch(ARGV[5], '%S+') do SCHEDULE[#SCHEDULE + 1] = tonumber(d) end
local ASK = ARGV[6] == '1'
local FIELDS = 24

-- pool_rules.scheduled_delay
local function retry_delay(failures)
  if failures <= 0 or #SCHEDULE == 0 then return 0 end
  return SCHEDULE[math.min(failures, #SCHEDULE)]
end

-- A result for a URL whose lease expired and which waits in its queue again: take it.
local function adopt(url)
  if url == '' then return nil end
  local raw = redis.call('HGET', K_URL, url)
  if not raw then return nil end
  local u = urec(raw)
  if u.st ~= 'W' then return nil end
  local hn = host_of(url)
  if redis.call('ZREM', kq(hn), url) == 0 then return nil end
  local h = host(hn)
  h.wait = h.wait - 1
  tot('tw', -1)
  h.infl = h.infl + 1
  dirty(h)
  return {host = hn, depth = u.depth, seq = u.seq, hub = false}
end

local function hub_result(url, h, label, due, fails, planned, reason, rate)
  local hub = get_hub(url)
  if not hub then return end -- removed from the hub list while in flight
  if rate ~= '' then
    hub.planned, hub.reason, hub.rate = tonumber(planned), reason, rate
  end
  hub.infl = 0
  hub.last = NOW
  hub.res = label
  hub.crashes = 0 -- a result came back: the worker survived this hub
  -- pool_rules.hub_next_due's values (a hub re-added while its values were read: due now)
  hub.due = tonumber(due) or NOW
  hub.fails = tonumber(fails) or 0
  put_hub(url, hub)
  arm_hub(url, hub.due, h)
  bump()
end

-- A result computed from what is no longer so, or a hub's without its values (ask = '1').
local function outdated(i)
  if not ASK then return false end
  local hn, hub = nil, false
  for _, u in ipairs({ARGV[i], ARGV[i + 1]}) do
    if u ~= '' and not hn then
      local raw = redis.call('HGET', K_LDATA, u)
      if raw then
        local f = split(raw, 7)
        hn, hub = f[1], f[4] == '1' and redis.call('HEXISTS', K_HUBS, u) == 1
      end
    end
  end
  if not hn and ARGV[i + 1] ~= '' then hn = host_of(ARGV[i + 1]) end -- (adopted, if waiting)
  if not hn then return false end -- not in flight: ignored anyway
  if hub and ARGV[i + 12] == '' then return true end
  local h = host(hn)
  return h.md ~= tonumber(ARGV[i + 7]) or h.ud ~= tonumber(ARGV[i + 8])
end

local ignored, follow, seen, unsent = {}, {}, {}, {}
local i = 7 -- the first result (ARGV[4..6] are the policy)
while i + FIELDS - 1 <= #ARGV do
  local url, curl, oc, ls = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local elapsed, delay, dbasis = tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]), ARGV[i + 6]
  local throttle = tonumber(ARGV[i + 9])
  local err, label = ARGV[i + 10], ARGV[i + 11]
  local hdue, hfails = ARGV[i + 12], ARGV[i + 13]
  local final, fhost, target = ARGV[i + 14], ARGV[i + 15], ARGV[i + 16]
  local failure, refusal = ARGV[i + 17], ARGV[i + 18]
  local fhere = ARGV[i + 19] == '1'
  local hplanned, hreason, hrate = ARGV[i + 20], ARGV[i + 21], ARGV[i + 22]
  local rafter = ARGV[i + 23] == '1'
  local lacking = outdated(i)
  i = i + FIELDS
  if lacking then
    unsent[#unsent + 1] = url
  else
    local key = url
    local L = end_lease(url)
    if not L and curl ~= '' and curl ~= url then
      L = end_lease(curl)
      key = curl
    end
    if not L then
      L = adopt(curl)
      key = curl
    end
    if not L then
      ignored[#ignored + 1] = url
    else
      local h = host(L.host)
      h.infl = h.infl - 1
      h.ls = ls
      h.le = elapsed
      h.dl, h.db = delay, dbasis -- pool_rules.host_delay_and_basis
      h.na = NOW + h.dl
      if oc == 'T' and NOW + throttle > h.bo then
        h.bo = NOW + throttle
        h.bs = ls
        if rafter then h.ra = 1 else h.ra = 0 end
      end
      dirty(h)
      if L.hub then
        hub_result(key, h, label, hdue, hfails, hplanned, hreason, hrate)
        if oc == 'X' and target ~= '' then
          follow[#follow + 1] = target
          follow[#follow + 1] = 0
          follow[#follow + 1] = key
        end
      else
        local raw = redis.call('HGET', K_URL, key)
        local u = raw and urec(raw) or {att = 0, extra = ''}
        local att, ref = u.att, u.extra
        if oc == 'D' then
          put_url(key, 'D', L.depth, att, L.seq, NOW, ref)
          h.done = h.done + 1
          tot('td', 1)
          if final ~= '' and final ~= key then
            if fhere then
              mark_seen(final, fhost, L.depth, key)
            else
              seen[#seen + 1] = final
              seen[#seen + 1] = fhost
              seen[#seen + 1] = L.depth
              seen[#seen + 1] = key
            end
          end
        elseif oc == 'X' then
          put_url(key, 'X', L.depth, att, L.seq, NOW, target)
          h.redir = h.redir + 1
          tot('tx', 1)
          if target ~= '' then
            follow[#follow + 1] = target
            follow[#follow + 1] = L.depth
            follow[#follow + 1] = key
          end
        elseif oc == 'F' then
          put_url(key, 'F', L.depth, att + 1, L.seq, NOW, ref .. failure)
          h.fail = h.fail + 1
          tot('tf', 1)
        elseif oc == 'N' then -- refused by policy: permanent, no attempt counted
          put_url(key, 'F', L.depth, att, L.seq, NOW, ref .. failure)
          redis.call('HSET', K_REFUSALS, key, refusal)
          h.fail = h.fail + 1
          tot('tf', 1)
          tot('tn', 1)
        else
          att = att + 1
          if att > THRESH then
            put_url(key, 'F', L.depth, att, L.seq, NOW, ref .. failure)
            redis.call('ZREM', K_RETRY, key)
            redis.call('HDEL', K_RDATA, key)
            h.fail = h.fail + 1
            tot('tf', 1)
          else
            local wait -- pool_rules.retry_delay
            if oc == 'T' then wait = throttle else wait = retry_delay(att) end
            redis.call('ZADD', K_RETRY, fmt(NOW + wait), key)
            redis.call('HSET', K_RDATA, key, err)
            put_url(key, 'R', L.depth, att, L.seq, NOW, ref)
            h.retr = h.retr + 1
            tot('tr', 1)
          end
        end
      end
    end
  end
end
flush()
local res = {}
for _, u in ipairs(ignored) do res[#res + 1] = u end
res[#res + 1] = ''
for _, v in ipairs(follow) do res[#res + 1] = v end
res[#res + 1] = ''
for _, v in ipairs(seen) do res[#res + 1] = v end
res[#res + 1] = ''
for _, u in ipairs(unsent) do res[#res + 1] = u end
return res
