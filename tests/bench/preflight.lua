-- wrk script: a CORS preflight (OPTIONS with Origin and
-- Access-Control-Request-Method), answered 204 by the app's cors middleware
-- without touching the database (tests/bench/run.ts, the runtime floor).
wrk.method = "OPTIONS"
wrk.headers["Origin"] = "https://client.example"
wrk.headers["Access-Control-Request-Method"] = "GET"
