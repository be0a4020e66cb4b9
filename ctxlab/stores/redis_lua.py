"""The Lua scripts behind :mod:`ctxlab.stores.redis`: one script per operation, so each
is atomic and costs one round trip. Every key a script touches belongs to one session, so on
a Redis Cluster with ctxlab's hash-tagged keys all of them live in one slot."""

#: How long a writer's last batch token is kept to recognise a retried call (ms).
DEDUP_MS = 300_000

# KEYS: 1 hash, 2 messages, 3 counter, 4 state, 5 checkpoints, 6 writer token
# ARGV: 1 known length (-1: report nothing), 2 raw JSON of the last known item,
#       3 known epoch, 4 known version, 5 ttl in ms (0: none), 6 now (unix seconds),
#       7... per script
PRELUDE = """
local known = tonumber(ARGV[1])
local ttl = tonumber(ARGV[5])
local function state()
  local st = redis.call('HMGET', KEYS[4], 'version', 'epoch')
  return tonumber(st[1]) or 0, tonumber(st[2]) or 0
end
local version, epoch = state()
local len = redis.call('LLEN', KEYS[2])
local ok = epoch == tonumber(ARGV[3])
if ok and known > 0 then
  ok = len >= known and redis.call('LINDEX', KEYS[2], known - 1) == ARGV[2]
end
local from = known
if not ok then from = 0 end
local function seen_items()
  if known < 0 then return {} end  -- a blind write (the SDK-style session API)
  if len > from then return redis.call('LRANGE', KEYS[2], from, len - 1) end
  return {}
end
local function refresh()
  if ttl > 0 then
    for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function finish(extra)
  local v, e = state()
  local data = false
  if v ~= tonumber(ARGV[4]) then data = redis.call('HGET', KEYS[4], 'data') end
  return {ok and 1 or 0, v, e, data, extra}
end
"""

# The read every ``get_items`` starts with, so it is lean: it writes nothing, so it reads
# the state once, and it names only the two keys it reads (the other scripts' PRELUDE
# declares all seven and takes a ttl and a clock it does not need: each key and argument is
# one more bulk string to encode, send and parse, on every read). Same checks and the same
# reply as PRELUDE + finish: {in step, version, epoch, data if the version moved, {items}}.
# KEYS: 1 messages, 2 state. ARGV: 1 known length, 2 raw JSON of the last known item,
#       3 known epoch, 4 known version
SYNC = """
local known = tonumber(ARGV[1])
local st = redis.call('HMGET', KEYS[2], 'version', 'epoch')
local version, epoch = tonumber(st[1]) or 0, tonumber(st[2]) or 0
local len = redis.call('LLEN', KEYS[1])
local ok = epoch == tonumber(ARGV[3])
if ok and known > 0 then
  ok = len >= known and redis.call('LINDEX', KEYS[1], known - 1) == ARGV[2]
end
local from = known
if not ok then from = 0 end
local seen = {}
if known >= 0 and len > from then seen = redis.call('LRANGE', KEYS[1], from, len - 1) end
local data = false
if version ~= tonumber(ARGV[4]) then data = redis.call('HGET', KEYS[2], 'data') end
return {ok and 1 or 0, version, epoch, data, {seen}}
"""

# ARGV 7: batch token, 8: session id, 9...: items
APPEND = PRELUDE + """
local seen = seen_items()
local keep_token = DEDUP_MS
if ttl > 0 and ttl < keep_token then keep_token = ttl end
if redis.call('GET', KEYS[6]) == ARGV[7] then
  -- a repeated call whose first attempt landed: store nothing, but write the token again,
  -- so a WAIT that follows on this connection covers the first attempt too
  redis.call('SET', KEYS[6], ARGV[7], 'PX', keep_token)
  return finish({seen, 1})
end
redis.call('HSET', KEYS[1], 'session_id', ARGV[8])
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[6])
for i = 9, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[6])
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
redis.call('SET', KEYS[6], ARGV[7], 'PX', keep_token)
refresh()
return finish({seen, 0})
""".replace("DEDUP_MS", str(DEDUP_MS))

POP = PRELUDE + """
local seen = seen_items()
local popped = redis.call('RPOP', KEYS[2])
if popped then
  redis.call('HINCRBY', KEYS[4], 'version', 1)
  redis.call('HINCRBY', KEYS[4], 'epoch', 1)
  redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
  refresh()
end
return finish({seen, popped, redis.call('LINDEX', KEYS[2], -1)})
"""

CLEAR = PRELUDE + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5])
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
redis.call('HDEL', KEYS[4], 'data')
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
refresh()
return finish({})
"""

# ARGV 7: length to keep, 8: expected version, 9: new data ('' for none)
TRUNCATE = PRELUDE + """
if version ~= tonumber(ARGV[8]) then return {-1} end
local seen = seen_items()
local length = tonumber(ARGV[7])
local removed = {}
if len > length then
  removed = redis.call('LRANGE', KEYS[2], length, -1)
  if length == 0 then redis.call('DEL', KEYS[2])
  else redis.call('LTRIM', KEYS[2], 0, length - 1) end
end
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
if ARGV[9] == '' then redis.call('HDEL', KEYS[4], 'data') else
  redis.call('HSET', KEYS[4], 'data', ARGV[9]) end
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
refresh()
return finish({seen, removed, redis.call('LINDEX', KEYS[2], -1)})
"""

# State scripts. KEYS: 1 state, 2 checkpoints, 3 hash, 4 messages, 5 counter
# ARGV: 1 ttl ms, 2 now, 3... per script
STATE_PRELUDE = """
local ttl = tonumber(ARGV[1])
local function refresh()
  if ttl > 0 then
    for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function result()
  local st = redis.call('HMGET', KEYS[1], 'version', 'epoch', 'data')
  return {tonumber(st[1]) or 0, tonumber(st[2]) or 0, st[3]}
end
"""

# ARGV 3: expected version, 4: data ('' for none)
CAS = STATE_PRELUDE + """
local v = tonumber(redis.call('HGET', KEYS[1], 'version')) or 0
if v ~= tonumber(ARGV[3]) then return {0, result()} end
if ARGV[4] == '' then redis.call('HDEL', KEYS[1], 'data') else
  redis.call('HSET', KEYS[1], 'data', ARGV[4]) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return {1, result()}
"""

# ARGV 3: '1' to reset (drop data and checkpoints) as well
BUMP = STATE_PRELUDE + """
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'data')
  redis.call('DEL', KEYS[2])
end
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return result()
"""

# ARGV 3: name, 4: record
PUT_CHECKPOINT = STATE_PRELUDE + """
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return 1
"""

# KEYS: lease. ARGV: owner, ttl ms
ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur == ARGV[1] or (ARGV[3] ~= '' and cur == ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# A session the SDK's RedisSession wrote, copied once into ctxlab's hash-tagged keys.
# KEYS: 1 hash, 2 messages, 3 counter, 4 state, 5 checkpoints
# ARGV: 1 session id, 2 now, 3 ttl ms, 4 version, 5 epoch, 6 data ('' for none),
#       7 number of checkpoints, then (name, record) pairs, then the items
IMPORT = """
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[4]) == 1 then
  return 0
end
local first = 8 + 2 * tonumber(ARGV[7])
redis.call('HSET', KEYS[1], 'session_id', ARGV[1], 'created_at', ARGV[2],
           'updated_at', ARGV[2])
for i = first, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[4], 'version', ARGV[4], 'epoch', ARGV[5], 'touched_at', ARGV[2])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[4], 'data', ARGV[6]) end
for i = 8, first - 1, 2 do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
return #ARGV - first + 1
"""

# ARGV 7: how many items from the start, 8: how many from the end (a first read)
ENDS = PRELUDE + """
local head = tonumber(ARGV[7])
local tail = tonumber(ARGV[8])
local first = {}
if head > 0 and len > 0 then
  first = redis.call('LRANGE', KEYS[2], 0, math.min(head, len) - 1)
end
local start_at = math.max(#first, len - tail)
local last = {}
if len > start_at then last = redis.call('LRANGE', KEYS[2], start_at, len - 1) end
return finish({len, first, last})
"""
