-- set_paused(flag) on the pool-wide meta hash (KEYS[1]), without the common prelude
-- -> the new control generation
redis.call('HSET', KEYS[1], 'paused', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'generation', 1)
