-- wrk script for tests/bench/memory.ts: GET /api/events/{id} over random ids
-- from 1 to <max id> (the argument after `--`), so the public-read cache
-- cannot hold the answers and most requests run their statements.

function init(args)
  max_id = tonumber(args[1])
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end

function request()
  return wrk.format("GET", "/api/events/" .. math.random(1, max_id))
end
