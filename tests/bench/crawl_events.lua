-- wrk script for tests/bench/measures.ts: GET /api/events/{id} over every id
-- once, in order, from <first> to <max id> (the arguments after `--`), the
-- threads taking turns (thread t of n asks for first + t, first + t + n, ...);
-- past <max id> it starts again at 1. A crawler's first pass: each answer is
-- made and kept (lib/events/bodies.ts) by this request.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  first = tonumber(args[1])
  max_id = tonumber(args[2])
  step = tonumber(args[3])
  next_id = first + index
end

function request()
  local id = next_id
  next_id = next_id + step
  if next_id > max_id then next_id = ((next_id - 1) % max_id) + 1 end
  return wrk.format("GET", "/api/events/" .. id)
end
