"""The Lua scripts behind :mod:`ctxlab.stores.redis`: one script per operation, so each
is atomic and costs one round trip. Every key a script touches belongs to one session, so on
a Redis Cluster with ctxlab's hash-tagged keys all of them live in one slot."""

#: How long a writer's last batch token is kept to recognise a retried call (ms).
DEDUP_MS = 300_000

# Every log script starts by checking the caller's cursor against the log (CHECK below),
# with the session's messages list as MSGS and its state hash as STATE, and ARGV 1 the
# known length (-1: report nothing), 2 the SHA-1 of the last known item's raw JSON (so
# neither a read nor a write sends that item back), 3 the known epoch. The cursor is in
# step when the epoch is unchanged and the item at the known length is the one it knows;
# ``from`` is where the caller's new items begin (0: the whole log, it must re-read).
CHECK = """
local known = tonumber(ARGV[1])
local st = redis.call('HMGET', STATE, 'version', 'epoch', 'mark')
local version, epoch, mark = tonumber(st[1]) or 0, tonumber(st[2]) or 0, st[3]
local len = redis.call('LLEN', MSGS)
local function in_step()
  if epoch ~= tonumber(ARGV[3]) then return false end
  if known <= 0 then return true end
  if len < known then return false end
  return redis.sha1hex(redis.call('LINDEX', MSGS, known - 1)) == ARGV[2]
end
"""

# The change mark: every script that changes a session's log or state sets the state hash's
# ``mark`` to a fresh random token of the caller's, and every log script returns the mark
# it leaves. A reader whose cursor took in everything up to a mark (the reply that carried
# it) and finds the same mark (and the same list length: a program writing behind ctxlab's
# back changes that, not the mark) knows nothing changed, without checking the cursor's
# item or sending it (SYNC's first line). A key that expires takes its mark with it.

# KEYS: 1 hash, 2 messages, 3 counter, 4 state, 5 checkpoints, 6 writer token
# ARGV: 1-3 as CHECK, 4 known version, 5 ttl in ms (0: none), 6 now (unix seconds),
#       7 the new change mark, 8... per script
PRELUDE = """
local MSGS, STATE = KEYS[2], KEYS[4]
""" + CHECK + """
local ttl = tonumber(ARGV[5])
local ok = in_step()
local from = known
if not ok then from = 0 end
local function seen_items()
  if known < 0 then return {} end  -- a blind write (the SDK-style session API)
  if len > from then return redis.call('LRANGE', KEYS[2], from, len - 1) end
  return {}
end
local function touch()
  redis.call('HSET', KEYS[4], 'touched_at', ARGV[6], 'mark', ARGV[7])
  if ttl > 0 then
    for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function finish(extra)
  local now = redis.call('HMGET', KEYS[4], 'version', 'epoch', 'mark')
  local v = tonumber(now[1]) or 0
  local data = false
  if v ~= tonumber(ARGV[4]) then data = redis.call('HGET', KEYS[4], 'data') end
  return {ok and 1 or 0, v, tonumber(now[2]) or 0, data, extra, now[3]}
end
"""

# The read every ``get_items`` starts with, so it is lean: it writes nothing and names only
# the two keys it reads. In step by the change mark (the usual case: this reader wrote last,
# or read last, and nobody wrote since) it answers 1 and nothing else; otherwise the same
# checks and reply as PRELUDE + finish: {in step, version, epoch, data if the version
# moved, {items}, mark}.
# KEYS: 1 messages, 2 state. ARGV: 1-3 as CHECK, 4 known version, 5 known mark ('': none)
SYNC = """
local MSGS, STATE = KEYS[1], KEYS[2]
""" + CHECK + """
if mark == ARGV[5] and len == known then return 1 end
local ok = in_step()
local from = known
if not ok then from = 0 end
local seen = {}
if known >= 0 and len > from then seen = redis.call('LRANGE', KEYS[1], from, len - 1) end
local data = false
if version ~= tonumber(ARGV[4]) then data = redis.call('HGET', KEYS[2], 'data') end
return {ok and 1 or 0, version, epoch, data, {seen}, mark}
"""

# ARGV 8: batch token, 9: session id, 10...: items
APPEND = PRELUDE + """
local seen = seen_items()
local keep_token = DEDUP_MS
if ttl > 0 and ttl < keep_token then keep_token = ttl end
if redis.call('GET', KEYS[6]) == ARGV[8] then
  -- a repeated call whose first attempt landed: store nothing, but write the token again,
  -- so a WAIT that follows on this connection covers the first attempt too
  redis.call('SET', KEYS[6], ARGV[8], 'PX', keep_token)
  return finish({seen, 1})
end
redis.call('HSET', KEYS[1], 'session_id', ARGV[9])
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[6])
for i = 10, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[6])
redis.call('SET', KEYS[6], ARGV[8], 'PX', keep_token)
touch()
return finish({seen, 0})
""".replace("DEDUP_MS", str(DEDUP_MS))

POP = PRELUDE + """
local seen = seen_items()
local popped = redis.call('RPOP', KEYS[2])
if popped then
  redis.call('HINCRBY', KEYS[4], 'version', 1)
  redis.call('HINCRBY', KEYS[4], 'epoch', 1)
  touch()
end
return finish({seen, popped, redis.call('LINDEX', KEYS[2], -1)})
"""

CLEAR = PRELUDE + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5])
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
redis.call('HDEL', KEYS[4], 'data')
touch()
return finish({})
"""

# ARGV 8: length to keep, 9: expected version, 10: new data ('' for none)
TRUNCATE = PRELUDE + """
if version ~= tonumber(ARGV[9]) then return {-1} end
local seen = seen_items()
local length = tonumber(ARGV[8])
local removed = {}
if len > length then
  removed = redis.call('LRANGE', KEYS[2], length, -1)
  if length == 0 then redis.call('DEL', KEYS[2])
  else redis.call('LTRIM', KEYS[2], 0, length - 1) end
end
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
if ARGV[10] == '' then redis.call('HDEL', KEYS[4], 'data') else
  redis.call('HSET', KEYS[4], 'data', ARGV[10]) end
touch()
return finish({seen, removed, redis.call('LINDEX', KEYS[2], -1)})
"""

# State scripts. KEYS: 1 state, 2 checkpoints, 3 hash, 4 messages, 5 counter
# ARGV: 1 ttl ms, 2 now, 3 the new change mark, 4... per script
STATE_PRELUDE = """
local ttl = tonumber(ARGV[1])
local function touch()
  redis.call('HSET', KEYS[1], 'touched_at', ARGV[2], 'mark', ARGV[3])
  if ttl > 0 then
    for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function result()
  local st = redis.call('HMGET', KEYS[1], 'version', 'epoch', 'data')
  return {tonumber(st[1]) or 0, tonumber(st[2]) or 0, st[3]}
end
"""

# ARGV 4: expected version, 5: data ('' for none)
CAS = STATE_PRELUDE + """
local v = tonumber(redis.call('HGET', KEYS[1], 'version')) or 0
if v ~= tonumber(ARGV[4]) then return {0, result()} end
if ARGV[5] == '' then redis.call('HDEL', KEYS[1], 'data') else
  redis.call('HSET', KEYS[1], 'data', ARGV[5]) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
touch()
return {1, result()}
"""

# ARGV 4: '1' to reset (drop data and checkpoints) as well
BUMP = STATE_PRELUDE + """
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
if ARGV[4] == '1' then
  redis.call('HDEL', KEYS[1], 'data')
  redis.call('DEL', KEYS[2])
end
touch()
return result()
"""

# ARGV 4: name, 5: record (checkpoints are no part of what a reader syncs, but a new mark
# costs a reader one full check, and keeps the rule simple: every write sets one)
PUT_CHECKPOINT = STATE_PRELUDE + """
redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
touch()
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
#       7 number of checkpoints, 8 the new change mark, then (name, record) pairs, then
#       the items
IMPORT = """
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[4]) == 1 then
  return 0
end
local first = 9 + 2 * tonumber(ARGV[7])
redis.call('HSET', KEYS[1], 'session_id', ARGV[1], 'created_at', ARGV[2],
           'updated_at', ARGV[2])
for i = first, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[4], 'version', ARGV[4], 'epoch', ARGV[5], 'touched_at', ARGV[2],
           'mark', ARGV[8])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[4], 'data', ARGV[6]) end
for i = 9, first - 1, 2 do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
return #ARGV - first + 1
"""

# ARGV 8: how many items from the start, 9: how many from the end (a first read)
ENDS = PRELUDE + """
local head = tonumber(ARGV[8])
local tail = tonumber(ARGV[9])
local first = {}
if head > 0 and len > 0 then
  first = redis.call('LRANGE', KEYS[2], 0, math.min(head, len) - 1)
end
local start_at = math.max(#first, len - tail)
local last = {}
if len > start_at then last = redis.call('LRANGE', KEYS[2], start_at, len - 1) end
return finish({len, first, last})
"""
