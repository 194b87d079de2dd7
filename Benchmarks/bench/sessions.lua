-- wrk script for many clients polling their own sessions (cpu-per-request.sh's
-- BENCH_SESSIONS): each request asks for the next of the request targets listed in the file
-- TARGETS_FILE (one per line, such as /view?session=TOKEN), starting at a random one per
-- thread; the request's other fields are wrk's (its -H options). nginx's file is asked for
-- through this script too, with as many targets of the same length, so that the client spends
-- the same work per request on both servers.
local targets = {}
for line in io.lines(os.getenv("TARGETS_FILE")) do
  if #line > 0 then targets[#targets + 1] = line end
end
assert(#targets > 0, "TARGETS_FILE lists no request target")
local next = math.random(#targets)

request = function()
  next = next % #targets + 1
  return wrk.format("GET", targets[next])
end
