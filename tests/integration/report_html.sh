#!/usr/bin/env bash
# corral report --html: the page opened in headless Chromium loads with no
# console error and shows one bar per process of a known run (the page
# exposes the count as data-bars on <body>; --dump-dom reads it after the
# scripts ran); #filter= narrows the bars to the matching argv; #pid= opens
# a process's details, where argv bytes that are not UTF-8 read \xNN; an
# argv that tries to close the <script> element cannot; and a journal of
# 10,000 processes loads and shows them all.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree
command -v chromium >/dev/null || { fail "chromium is missing (make deps installs it)"; done_test; }

# page NAME FILE [#HASH]: the DOM after load in $T/NAME.dom, console in .log
page() {
	local name=$1 file=$2 hash=${3:-} prof rc
	prof=$(mktemp -d "$T/chrome.XXXXXX")
	timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$prof" --enable-logging=stderr --v=0 \
		--dump-dom "file://$file$hash" >"$T/$name.dom" 2>"$T/$name.log" </dev/null
	rc=$?
	rm -rf "$prof"
	[ "$rc" = 0 ] || { fail "$name: chromium exited $rc"; tail -5 "$T/$name.log" >&2; return 1; }
	if grep -a ':CONSOLE' "$T/$name.log" >&2; then
		fail "$name: the page wrote to the console (above)"
	fi
	BODY=$(grep -ao '<body[^>]*>' "$T/$name.dom" | head -n 1)
	[[ $BODY == *'data-ready="1"'* ]] || { fail "$name: the page did not finish loading: $BODY"; return 1; }
	[[ $BODY != *data-error* ]] || fail "$name: script error: $BODY"
}
attr() { sed -n "s/.* data-$1=\"\\([^\"]*\\)\".*/\\1/p" <<<"$BODY"; }

RUN_LABEL="known run"
j=$T/j.known
run -- "$CORRAL" run -q -j "$j" -- sh -c '$0/forktree 2 3 >/dev/null; /bin/echo done' "$FIX"
expect_rc 0 "forktree under sh"
if j_valid "$j"; then
	want=$(($(j_count "$j" '.event == "fork" or .event == "vfork" or .event == "clone"') + 1))
	expect_eq "$want" 15 "processes in the journal (sh, 13 forktree members, echo)"
	"$CORRAL" report -q --html "$T/known.html" "$j" || fail "report --html failed"
	grep -qiE '<(script|link|img)[^>]* (src|href)=' "$T/known.html" && fail "the page loads something from outside"
	if page known "$T/known.html"; then
		expect_eq "$(attr bars)" "$want" "process bars"
		expect_eq "$(attr procs)" "$want" "processes in the page"
	fi
	# the 13 forktree members exec'd (or run) $FIX/forktree; sh's argv
	# says $0/forktree
	if page filtered "$T/known.html" "#filter=$FIX/forktree"; then
		expect_eq "$(attr bars)" 13 "bars matching the filter '$FIX/forktree'"
	fi
fi

RUN_LABEL="bytes and markup in argv"
bad=$(printf 'a\377b\303')
j=$T/j.bytes
run -- "$CORRAL" run -q -j "$j" -- sh -c 'exit 0' "$bad" '</script><script>document.body.dataset.pwned=1</script>'
expect_rc 0 "sh with odd argv"
if j_valid "$j"; then
	pid=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	"$CORRAL" report -q --html "$T/bytes.html" "$j" || fail "report --html failed"
	if page bytes "$T/bytes.html" "#pid=$pid"; then
		[[ $BODY != *pwned* ]] || fail "argv markup ran as a script"
		grep -qF '<li>a\xffb\xc3</li>' "$T/bytes.dom" || fail "details do not show the bytes as \\xNN"
		grep -qF '&lt;/script&gt;&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;' "$T/bytes.dom" ||
			fail "details do not show the markup argv as text"
	fi
fi

RUN_LABEL="schema 2"
cat >"$T/s2.jsonl" <<'J'
{"event":"start","t":0,"schema":2,"version":"0.2.0","pid":1,"time":"2026-12-01T10:00:00.000000Z","host":"vm","argv":["corral"],"command":["sh"],"n":0,"h":"ab"}
{"event":"exec","t":0.1,"pid":10,"tgid":10,"path":"/bin/sh","argv":["sh"],"n":1,"h":"cd"}
{"event":"exit","t":0.3,"pid":10,"tgid":10,"status":0,"cpu_user":0.01,"cpu_sys":0.002,"max_rss":2048,"n":2,"h":"ef"}
{"event":"end","t":0.4,"exit_code":0,"reason":"none","status":0,"processes":1,"threads":0,"execs":1,"left":0,"killed":0,"survivors":0,"phases":{"grace":0,"stop":0,"kill":0},"duration":0.4,"journal_lost":0,"journal_intact":true,"n":3,"h":"01"}
J
"$CORRAL" report -q --html "$T/s2.html" "$T/s2.jsonl" || fail "report --html failed"
if page s2 "$T/s2.html" "#pid=10"; then
	grep -qF '<td>max rss</td><td>2.0 MiB</td>' "$T/s2.dom" || fail "details do not show the peak RSS"
	grep -qF '<td>cpu</td><td>user 10.0 ms, sys 2.00 ms</td>' "$T/s2.dom" || fail "details do not show the CPU time"
	grep -qF 'started <b>2026-12-01T10:00:00.000000Z</b>' "$T/s2.dom" || fail "header does not show the wall clock"
fi

RUN_LABEL="10,000 processes"
python3 "$LIB_DIR/report_gen.py" 36000 3 >"$T/big.jsonl"
want=$(($(jq -c 'select(.event == "fork")' "$T/big.jsonl" | wc -l) + 1))
[ "$want" -ge 10000 ] || fail "the synthetic journal has only $want processes"
"$CORRAL" report -q --html "$T/big.html" "$T/big.jsonl" || fail "report --html failed"
if page big "$T/big.html"; then
	expect_eq "$(attr bars)" "$want" "process bars of the big run"
fi

done_test
