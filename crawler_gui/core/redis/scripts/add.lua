-- add(always, cap, n_refused, [reason, count]*n_refused, [url, host, depth, referrer]*)
-- -> {added, duplicate, overflow item indexes (1-based)...}
local ALWAYS = ARGV[4] == '1'
local CAP = tonumber(ARGV[5])
local NREF = tonumber(ARGV[6])
local i = 7
for _ = 1, NREF do
  redis.call('HINCRBY', K_REFUSED, ARGV[i], ARGV[i + 1])
  i = i + 2
end
local seq = tonumber(redis.call('HGET', K_META, 'seq') or '0')
local added, dup = 0, 0
local over = {}
local idx = 0
while i <= #ARGV do
  idx = idx + 1
  local url, hn, depth, ref = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]
  i = i + 4
  if redis.call('HEXISTS', K_HUBS, url) == 1 or redis.call('HEXISTS', K_LDATA, url) == 1 then
    dup = dup + 1
  else
    local h = host(hn)
    local old = redis.call('HGET', K_URL, url)
    local st = old and string.sub(old, 1, 1) or nil
    if st and ((not ALWAYS) or st == 'W') then
      dup = dup + 1
    elseif CAP >= 0 and h.wait >= CAP then
      over[#over + 1] = idx
    else
      if st then
        -- re-queue a finished URL: undo the counters of its old state
        if st == 'D' then h.done = h.done - 1; tot('td', -1)
        elseif st == 'F' then
          h.fail = h.fail - 1; tot('tf', -1)
          if redis.call('HDEL', K_REFUSALS, url) == 1 then tot('tn', -1) end
        elseif st == 'X' then h.redir = h.redir - 1; tot('tx', -1)
        elseif st == 'R' then
          h.retr = h.retr - 1; tot('tr', -1)
          redis.call('ZREM', K_RETRY, url)
          redis.call('HDEL', K_RDATA, url)
        end
      end
      seq = seq + 1
      enqueue(h, url, depth, 0, seq, ref)
      added = added + 1
    end
  end
end
if #over > 0 then
  redis.call('HINCRBY', K_META, 'overflow', #over)
  redis.call('HINCRBY', K_REFUSED, 'host_full', #over)
end
redis.call('HSET', K_META, 'seq', fmt(seq))
flush()
local res = {added, dup}
for _, k in ipairs(over) do res[#res + 1] = k end
return res
