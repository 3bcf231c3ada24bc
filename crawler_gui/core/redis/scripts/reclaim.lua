-- reclaim(threshold, worker) -> number of leases put back.
-- worker == '': every expired lease. Otherwise every lease of that worker (it is known dead,
-- e.g. restarted under the same id), expired or not, each counting an attempt.
local THRESH = tonumber(ARGV[4])
local WORKER = ARGV[5]
local n = 0
if WORKER == '' then
  n = reclaim_expired(THRESH)
else
  local all = redis.call('HGETALL', K_LDATA)
  for j = 1, #all, 2 do
    local f = split(all[j + 1], 7)
    if f[7] == WORKER then
      local L = end_lease(all[j])
      lease_lost(all[j], L, THRESH, 'worker lost', 1)
      n = n + 1
    end
  end
end
flush()
return n
