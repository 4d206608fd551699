-- wrk script for POST /api/events (tests/bench/run.ts).
-- Arguments after `--`: <token> <run tag> <first start (unix s)> <ack dir>
-- Every request has a unique title "Bench post <run> t<thread> n<count>".
-- response() counts statuses and appends the title of every 2xx answer to
-- <ack dir>/ack-<run>-<thread>.txt, so the caller can match answers to rows.

local threads = {}
local counter = 0

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  token = args[1]
  run = args[2]
  first_start = tonumber(args[3])
  ack_dir = args[4]
  statuses = {}
  headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }
  ack = io.open(ack_dir .. "/ack-" .. run .. "-" .. id .. ".txt", "a")
  ack:setvbuf("line")
end

function request()
  counter = counter + 1
  local title = string.format("Bench post %s t%d n%d", run, id, counter)
  local start = first_start + (id * 100000 + counter) * 60
  local body = string.format(
    '{"title":"%s","description":"<p>Created by wrk.</p>",' ..
    '"place_name":"Bench Hall","place_address":"1 Load Street",' ..
    '"start_datetime":%d,"end_datetime":%d,"tags":["bench-post","load"]}',
    title, start, start + 7200)
  return wrk.format("POST", "/api/events", headers, body)
end

function response(status, hdrs, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
  if status >= 200 and status < 300 then
    local title = string.match(body, '"title":"(Bench post [^"]*)"')
    ack:write((title or "?") .. "\n")
  end
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for k, v in pairs(s) do
      total[k] = (total[k] or 0) + v
    end
  end
  for k, v in pairs(total) do
    io.write(string.format("BENCH status %s %d\n", k, v))
  end
end
