-- Shared prelude of every crawler-gui pool script (prepended to each one).
-- ARGV[1] = key prefix "cg:<name>:", ARGV[2] = now (the pool clock, POSIX seconds),
-- ARGV[3] = politeness max_in_flight. Script-specific arguments start at ARGV[4].
-- Lua numbers are doubles: every float that goes into a string goes through fmt() (%.17g),
-- never tostring() or "..", which keep only 14 digits.
local P = ARGV[1]
local NOW = tonumber(ARGV[2])
local MAX_IF = tonumber(ARGV[3])
local K_META, K_URL, K_READY = P .. 'meta', P .. 'url', P .. 'ready'
local K_LEASE, K_LDATA = P .. 'lease', P .. 'ldata'
local K_RETRY, K_RDATA = P .. 'retry', P .. 'rdata'
local K_HUBS, K_HUBDUE = P .. 'hubs', P .. 'hubdue'
local K_HOSTS, K_REFUSED = P .. 'hosts', P .. 'refused'
-- URLs refused by policy when fetched (state F too): url -> reason TAB redirect target
local K_REFUSALS = P .. 'refusals'
-- Due hubs whose host cannot take them now are held out of K_HUBDUE, by host (see hold_hub):
-- held: host -> when its politeness wait ends ('+inf' while it has as many fetches in
-- flight as it may: the end of one of them arms its hubs again); hold:{host}: url -> due.
local K_HELD = P .. 'held'
local TAB = '\t'
local DEPTH_SCALE = 1099511627776 -- 2^40: queue score = depth * 2^40 + seq (exact below 2^53)

-- Legend of the short names (kept short: they are stored once per host and per group).
-- URL states (URL records, and frontier.STATE_BY_CODE): W waiting, D done, F failed (or
--   refused by policy), X redirected, R retrying.
-- Host hash h:{host} fields: wait waiting, infl in flight, done, fail failed, retr retrying,
--   redir redirected, md min_delay (robots.txt Crawl-delay), bo backoff_until (429/503),
--   na next_allowed, dl the current politeness delay, ls the label of the last result.
-- Group totals in meta: tw waiting, td done, tf failed, tr retrying, tx redirected, tn refused
--   by policy when fetched (also counted in tf); overflow, version, seq beside them.
-- URL record fields (urec): st state, att attempts, t time of the last change.
local function kq(h) return P .. 'q:{' .. h .. '}' end
local function kh(h) return P .. 'h:{' .. h .. '}' end
local function khold(h) return P .. 'hold:{' .. h .. '}' end
local function fmt(x) return string.format('%.17g', x) end
local function host_of(url) return string.match(url, '^[^:]+://([^/]+)') end
local function qscore(depth, seq)
  local d = depth
  if d > 8191 then d = 8191 end
  return fmt(d * DEPTH_SCALE + seq)
end

local function split(s, n)
  local out = {}
  local pos = 1
  for i = 1, n - 1 do
    local j = string.find(s, TAB, pos, true)
    if not j then
      out[i] = string.sub(s, pos)
      return out
    end
    out[i] = string.sub(s, pos, j - 1)
    pos = j + 1
  end
  out[n] = string.sub(s, pos)
  return out
end

-- URL record: state TAB depth TAB attempts TAB seq TAB time TAB extra (referrer, or target of X)
local function urec(raw)
  local f = split(raw, 6)
  return {st = f[1], depth = tonumber(f[2]) or 0, att = tonumber(f[3]) or 0,
          seq = tonumber(f[4]) or 0, t = tonumber(f[5]) or 0, extra = f[6] or ''}
end
local function put_url(url, st, depth, att, seq, t, extra)
  if att > 65535 then att = 65535 end
  redis.call('HSET', K_URL, url, st .. TAB .. fmt(depth) .. TAB .. fmt(att) .. TAB .. fmt(seq)
    .. TAB .. fmt(t) .. TAB .. (extra or ''))
end

-- Hub record: host TAB span TAB last_refresh TAB due TAB in_flight TAB last_result
--   TAB crashes TAB fails TAB parked TAB planned TAB reason TAB rate (fields from crashes
--   on absent in records of older versions)
-- crashes: leases lost in a row (process died, lease expired); fails: ordinary failed
-- refreshes in a row (the backoff); parked: why the hub waits for the user ('' = it does not);
-- planned, reason: the span the refresh plan gives it and why; rate: its learned rate state
-- (JSON, core/freshness.py). The last three are computed by the workers, in Python: the
-- scripts only store them.
local function get_hub(url)
  local raw = redis.call('HGET', K_HUBS, url)
  if not raw then return nil end
  local f = split(raw, 12)
  local span = tonumber(f[2])
  return {host = f[1], span = span, last = tonumber(f[3]), due = tonumber(f[4]),
          infl = tonumber(f[5]), res = f[6] or '', crashes = tonumber(f[7] or '') or 0,
          fails = tonumber(f[8] or '') or 0, parked = f[9] or '',
          planned = tonumber(f[10] or '') or span, reason = f[11] or '', rate = f[12] or ''}
end
local function put_hub(url, hub)
  redis.call('HSET', K_HUBS, url, hub.host .. TAB .. fmt(hub.span) .. TAB .. fmt(hub.last)
    .. TAB .. fmt(hub.due) .. TAB .. fmt(hub.infl) .. TAB .. string.gsub(hub.res, TAB, ' ')
    .. TAB .. fmt(hub.crashes or 0) .. TAB .. fmt(hub.fails or 0) .. TAB .. (hub.parked or '')
    .. TAB .. fmt(hub.planned or hub.span) .. TAB .. (hub.reason or '') .. TAB
    .. (hub.rate or ''))
end

-- Hosts: loaded once per script call, written back by flush().
-- Besides the counters, the inputs of the host's wait (core/waits.py): le the last response
-- time, ud the user's minimum delay (-1: none), pa 1 when paused by the user, bs the status
-- that started the backoff, ra 1 when Retry-After set its length, db the delay's basis.
local H, DIRTY, DORDER, TOT = {}, {}, {}, {}
local function host(name)
  local h = H[name]
  if h then return h end
  local v = redis.call('HMGET', kh(name), 'wait', 'infl', 'done', 'fail', 'retr', 'redir',
    'md', 'bo', 'na', 'dl', 'ls', 'le', 'ud', 'pa', 'bs', 'ra', 'db')
  h = {name = name, wait = tonumber(v[1]) or 0, infl = tonumber(v[2]) or 0,
       done = tonumber(v[3]) or 0, fail = tonumber(v[4]) or 0, retr = tonumber(v[5]) or 0,
       redir = tonumber(v[6]) or 0, md = tonumber(v[7]) or 0, bo = tonumber(v[8]) or 0,
       na = tonumber(v[9]) or 0, dl = tonumber(v[10]) or 0, ls = v[11] or '',
       le = tonumber(v[12]) or 0, ud = tonumber(v[13]) or -1, pa = tonumber(v[14]) or 0,
       bs = v[15] or '', ra = tonumber(v[16]) or 0, db = v[17] or ''}
  H[name] = h
  return h
end
local function dirty(h)
  if not DIRTY[h.name] then
    DIRTY[h.name] = true
    DORDER[#DORDER + 1] = h
  end
end
local function tot(field, n) TOT[field] = (TOT[field] or 0) + n end
local function allowed(h)
  if h.bo > h.na then return h.bo end
  return h.na
end
-- The ready set holds exactly the hosts that have a URL waiting and a free in-flight slot,
-- scored by the time they may be asked again.
local function schedule(h)
  if h.wait > 0 and h.infl < MAX_IF and h.pa ~= 1 then
    redis.call('ZADD', K_READY, fmt(allowed(h)), h.name)
  else
    redis.call('ZREM', K_READY, h.name)
  end
end
local function bump()
  return redis.call('HINCRBY', K_META, 'version', 1)
end

-- A due hub whose host cannot take it (in its politeness wait, or with as many fetches in
-- flight as it may have) is held by its host instead of staying in K_HUBDUE: left there with
-- its past score, it made next_due say "now" for as long as the host waited, and the
-- dispatcher asked again and again for nothing. The host's entry in K_HELD says when its hubs
-- may go back (its wait's end; '+inf' while it is busy); any change to the host re-keys or
-- re-arms them (held_check, from flush). The hub record keeps its own due time.
local function can_take(h)
  return h.infl < MAX_IF and allowed(h) <= NOW
end
local function held_at(h)
  if h.infl >= MAX_IF then return '+inf' end
  return fmt(allowed(h))
end
local function hold_hub(url, due, h)
  redis.call('ZREM', K_HUBDUE, url)
  redis.call('ZADD', khold(h.name), fmt(due), url)
  redis.call('ZADD', K_HELD, held_at(h), h.name)
end
-- A hub due at ``due``, not in flight, not parked, into the due set (or held, if it is due
-- and its host cannot take it; nowhere while its host is paused: resuming puts it back).
local function arm_hub(url, due, h)
  if h.pa == 1 then
    redis.call('ZREM', K_HUBDUE, url)
  elseif due <= NOW and not can_take(h) then
    hold_hub(url, due, h)
  else
    redis.call('ZADD', K_HUBDUE, fmt(due), url)
  end
end
-- The held hubs of a host whose state changed: back in the due set (each at its record's due
-- time) when it can take them, dropped when it is paused, else its K_HELD entry re-keyed.
local function held_check(h)
  if not redis.call('ZSCORE', K_HELD, h.name) then return end
  if h.pa ~= 1 and not can_take(h) then
    redis.call('ZADD', K_HELD, held_at(h), h.name)
    return
  end
  redis.call('ZREM', K_HELD, h.name)
  local key = khold(h.name)
  if h.pa ~= 1 then
    for _, url in ipairs(redis.call('ZRANGE', key, 0, -1)) do
      local hub = get_hub(url) -- (not if it was removed, or is in flight or parked since)
      if hub and hub.infl == 0 and hub.parked == '' then
        redis.call('ZADD', K_HUBDUE, fmt(hub.due), url)
      end
    end
  end
  redis.call('DEL', key)
end

local function flush()
  if #DORDER > 0 then
    local ver = bump()
    local held = redis.call('EXISTS', K_HELD) == 1
    for _, h in ipairs(DORDER) do
      redis.call('HSET', kh(h.name), 'wait', h.wait, 'infl', h.infl, 'done', h.done,
        'fail', h.fail, 'retr', h.retr, 'redir', h.redir, 'md', fmt(h.md), 'bo', fmt(h.bo),
        'na', fmt(h.na), 'dl', fmt(h.dl), 'ls', h.ls, 'le', fmt(h.le), 'ud', fmt(h.ud),
        'pa', h.pa, 'bs', h.bs, 'ra', h.ra, 'db', h.db)
      redis.call('ZADD', K_HOSTS, ver, h.name)
      schedule(h)
      if held then held_check(h) end
    end
  end
  for k, n in pairs(TOT) do
    if n ~= 0 then redis.call('HINCRBY', K_META, k, n) end
  end
end

-- Waiting URLs: state W in the URL hash plus a member of the host's queue.
local function enqueue(h, url, depth, att, seq, extra)
  redis.call('ZADD', kq(h.name), qscore(depth, seq), url)
  put_url(url, 'W', depth, att, seq, NOW, extra)
  h.wait = h.wait + 1
  tot('tw', 1)
  dirty(h)
end

-- A lease ended without a result: count the attempt, put the URL back where it was.
local function requeue_or_fail(h, url, depth, seq, att, extra, thresh)
  att = att + 1
  dirty(h)
  if att > thresh then
    put_url(url, 'F', depth, att, seq, NOW, extra)
    h.fail = h.fail + 1
    tot('tf', 1)
    return
  end
  enqueue(h, url, depth, att, seq, extra)
end

-- Lease record: host TAB depth TAB seq TAB is_hub TAB started TAB expires TAB worker
local function end_lease(url)
  local raw = redis.call('HGET', K_LDATA, url)
  if not raw then return nil end
  redis.call('HDEL', K_LDATA, url)
  redis.call('ZREM', K_LEASE, url)
  local f = split(raw, 7)
  return {host = f[1], depth = tonumber(f[2]), seq = tonumber(f[3]), hub = f[4] == '1',
          started = tonumber(f[5]), expires = tonumber(f[6]), worker = f[7]}
end

-- A lease is lost (expired, or its worker is known dead): hubs become due now, pages go back
-- to their queue, each with one attempt counted (``back`` = 1), or none for a release
-- (``back`` = 0). A hub that lost more leases in a row than a page may is parked.
local function lease_lost(url, L, thresh, hub_label, back)
  local h = host(L.host)
  h.infl = h.infl - 1
  dirty(h)
  if L.hub then
    local hub = get_hub(url)
    if hub then
      hub.infl = 0
      if hub_label then hub.res = hub_label end
      if back == 1 then
        hub.due = NOW
        hub.crashes = hub.crashes + 1
        if hub.crashes > thresh then hub.parked = 'crashed' end
      end
      put_hub(url, hub)
      if hub.parked == '' then
        arm_hub(url, hub.due, h)
      else
        redis.call('ZREM', K_HUBDUE, url)
      end
    end
    return
  end
  local raw = redis.call('HGET', K_URL, url)
  local att, extra = 0, ''
  if raw then
    local u = urec(raw)
    att, extra = u.att, u.extra
  end
  requeue_or_fail(h, url, L.depth, L.seq, att - 1 + back, extra, thresh)
end

local function reclaim_expired(thresh)
  local gone = redis.call('ZRANGEBYSCORE', K_LEASE, '-inf', fmt(NOW))
  local n = 0
  for _, url in ipairs(gone) do
    local L = end_lease(url)
    if L then
      lease_lost(url, L, thresh, 'lease expired', 1)
      n = n + 1
    end
  end
  return n
end

local function release_due_retries()
  local due = redis.call('ZRANGEBYSCORE', K_RETRY, '-inf', fmt(NOW))
  for _, url in ipairs(due) do
    redis.call('ZREM', K_RETRY, url)
    redis.call('HDEL', K_RDATA, url)
    local raw = redis.call('HGET', K_URL, url)
    if raw then
      local u = urec(raw)
      if u.st == 'R' then
        local h = host(host_of(url))
        h.retr = h.retr - 1
        tot('tr', -1)
        enqueue(h, url, u.depth, u.att, u.seq, u.extra)
      end
    end
  end
end

-- The final URL of a followed redirect chain is done too (never fetched again).
local function mark_seen(url, hn, depth, referrer)
  local h = host(hn)
  local old = redis.call('HGET', K_URL, url)
  if old then
    local u = urec(old)
    if u.st ~= 'W' or redis.call('HEXISTS', K_LDATA, url) == 1 then return end
    redis.call('ZREM', kq(hn), url)
    h.wait = h.wait - 1
    tot('tw', -1)
    put_url(url, 'D', u.depth, u.att, u.seq, NOW, u.extra)
  else
    local seq = redis.call('HINCRBY', K_META, 'seq', 1)
    put_url(url, 'D', depth, 0, seq, NOW, referrer)
  end
  h.done = h.done + 1
  tot('td', 1)
  dirty(h)
end
