-- release(threshold, [url]*) -> number released (unfetched, no attempt counted)
local THRESH = tonumber(ARGV[4])
local n = 0
for j = 5, #ARGV do
  local L = end_lease(ARGV[j])
  if L then
    lease_lost(ARGV[j], L, THRESH, nil, 0)
    n = n + 1
  end
end
flush()
return n
