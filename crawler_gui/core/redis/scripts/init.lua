-- init(schema, groups) on the pool-wide meta hash (KEYS[1]), without the common prelude:
-- create the pool unless it exists, in one step (two workers creating one pool agree on its
-- layout) -> {schema, groups}
if redis.call('HEXISTS', KEYS[1], 'schema') == 0 then
  redis.call('HSET', KEYS[1], 'schema', ARGV[1], 'groups', ARGV[2])
end
return redis.call('HMGET', KEYS[1], 'schema', 'groups')
