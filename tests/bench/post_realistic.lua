-- wrk script for tests/bench/writes.ts: POST /api/events with a realistic
-- body: a ~300-character description with paragraphs and a link, a new place
-- with an address, and two tags. Arguments after `--`: <token> <run tag>
-- <first start (unix s)>. Counts statuses (printed by done()).

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
  statuses = {}
  headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }
end

local description = "<p>An evening of live music in the courtyard: local " ..
  "bands play two sets each, with a break for food from the neighbourhood " ..
  "kitchen.</p><p>Entry is free; bring a chair if you can. Details and the " ..
  "programme are on <a href=\"https://example.org/programme\">our site</a>. " ..
  "In case of rain we move indoors to the hall.</p>"

function request()
  counter = counter + 1
  local start = first_start + (id * 100000 + counter) * 60
  local body = string.format(
    '{"title":"Courtyard concert %s t%d n%d","description":"%s",' ..
    '"place_name":"Courtyard %d","place_address":"Via dei Mille %d, Bologna",' ..
    '"start_datetime":%d,"end_datetime":%d,"tags":["music","Live %d"]}',
    run, id, counter, string.gsub(description, '"', '\\"'), counter % 50,
    counter % 50, start, start + 7200, counter % 20)
  return wrk.format("POST", "/api/events", headers, body)
end

function response(status, hdrs, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
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
