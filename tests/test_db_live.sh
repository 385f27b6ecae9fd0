#!/usr/bin/env bash
# test_db_live.sh - record block I/O with stacks on this host (ftrec), import it
# (ftana) and check the database against ground truth outside ftana:
#   - per event type, rows == events counted by ftzdump's independent kbuffer pass,
#     and all events == the kernel's own "read events" counters (per_cpu stats);
#   - the workload: dd writes 50 x 64 KiB with O_DIRECT, so the block_rq_issue rows
#     of dd's writes carry 3,276,800 bytes; bytes == nr_sector * 512 on every row;
#     rwbs is the kernel's letters;
#   - ts never goes back per CPU, ids follow ts globally;
#   - every stack frame resolves to a symbol, and the innermost frame is the
#     tracepoint of the event the stack is attached to;
#   - tables and columns carry the names of the kernel's format files;
#   - lost_events: one row per page the kernel flagged (ftzdump's count);
#   - no progress output when stderr is not a terminal; the cache goes under
#     $XDG_CACHE_HOME/ftana when the .ftz's directory is read-only.
set -u
if [ "$(id -u)" != 0 ]; then echo "not root: cannot record"; exit 77; fi
TRACEFS=/sys/kernel/tracing
if [ ! -w $TRACEFS/instances ]; then echo "no writable tracefs at $TRACEFS"; exit 77; fi
: "${FTREC:?} ${FTANA:?} ${FTZDUMP:?}"

T=$(mktemp -d /tmp/test_db_live.XXXXXX)
cleanup() { mountpoint -q "$T/ro" && umount "$T/ro"; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$FTANA" sql "$T/blk.ftz" "$1" --csv | tail -n +2; }

"$FTREC" record -e block:block_rq_issue,block:block_rq_complete -s -o "$T/blk.ftz" -- \
	dd if=/dev/zero of="$T/x" bs=64k count=50 oflag=direct 2>/dev/null ||
	fail "ftrec record failed"

"$FTANA" db "$T/blk.ftz" >"$T/db.out" 2>"$T/db.err" || fail "ftana db exit $?: $(cat "$T/db.err")"
[ -s "$T/db.err" ] && fail "ftana db wrote to a non-terminal stderr: $(cat "$T/db.err")"
[ "$(cat "$T/db.out")" = "$T/blk.ftz.db" ] || fail "db path: $(cat "$T/db.out")"

# 1. counts against ftzdump and the kernel
"$FTZDUMP" -q "$T/blk.ftz" >"$T/dump" || fail "ftzdump failed"
for ev in block_rq_issue block_rq_complete; do
	want=$(awk -v e=$ev '$1 == "event" && $2 == e { print $3 }' "$T/dump")
	got=$(q "select count(*) from $ev")
	[ -n "$want" ] && [ "$want" = "$got" ] || fail "$ev: ftana $got rows, ftzdump $want events"
done
total=$(awk '$1 == "total" { print $5 }' "$T/dump")
ours=$(q "select (select value from meta where key = 'events_total') +
	(select value from meta where key = 'stacks_attached') +
	(select value from meta where key = 'stacks_orphan') as n")
[ "$total" = "$ours" ] || fail "events incl. stacks: ftana $ours, ftzdump $total"
kernel=$(q "select sum(read) from cpu_stats_delta")
lost=$(q "select count(*) from lost_events")
if [ "$lost" = 0 ]; then
	[ "$kernel" = "$total" ] || fail "kernel read $kernel events, pages hold $total"
fi

# ftana info: this host, this kernel, the counts
"$FTANA" info "$T/blk.ftz" >"$T/info" || fail "ftana info failed"
grep -q "^host  *$(uname -n)\$" "$T/info" || fail "info: host is not $(uname -n): $(cat "$T/info")"
grep -q "^kernel .*$(uname -r)" "$T/info" || fail "info: kernel is not $(uname -r)"
want=$(awk '$1 == "event" && $2 == "block_rq_issue" { print $3 }' "$T/dump")
grep -q "^block_rq_issue  *block  *$want\$" "$T/info" || fail "info: block_rq_issue count is not $want"

# 2. the workload
dd_bytes=$(q "select sum(bytes) from block_rq_issue where comm = 'dd' and rwbs glob '*W*'")
all_w=$(q "select sum(bytes) from block_rq_issue where rwbs glob '*W*'")
[ "$dd_bytes" -le 3276800 ] && [ "$all_w" -ge 3276800 ] ||
	fail "write bytes: dd $dd_bytes, all $all_w, dd wrote 3276800"
[ "$(q "select count(*) from block_rq_issue where bytes != nr_sector * 512 and nr_sector > 0")" = 0 ] ||
	fail "bytes != nr_sector * 512"
[ "$(q "select count(*) from block_rq_issue where typeof(rwbs) != 'text' or
	rwbs not glob '[FRWDNE]*' or rwbs glob '*[^FRWDNESMAB]*'")" = 0 ] ||
	fail "rwbs not the kernel's letters: $(q "select distinct rwbs from block_rq_issue")"

# 3. order
[ "$(q "select count(*) from (select ts, lag(ts) over (partition by cpu order by id) p
	from events) where ts < p")" = 0 ] || fail "ts goes back on a CPU"
[ "$(q "select count(*) from (select ts, lag(ts) over (order by id) p from events)
	where ts < p")" = 0 ] || fail "ids do not follow ts"

# 4. stacks
[ "$(q "select count(*) from block_rq_issue where stack_id is not null")" -gt 0 ] ||
	fail "no stack attached to block_rq_issue"
[ "$(q "select count(*) from stacks where symbol is null")" = 0 ] || fail "unresolved frames"
[ "$(q "select count(*) from block_rq_issue i join stacks s using (stack_id)
	where s.depth = 0 and s.symbol not glob '*event_block_rq*'")" = 0 ] ||
	fail "an issue stack does not start at the block_rq tracepoint"
[ "$(q "select count(*) from block_rq_complete c join stacks s using (stack_id)
	where s.depth = 0 and s.symbol not glob '*block_rq_complet*'")" = 0 ] ||
	fail "a completion stack does not start at its tracepoint"

# 5. names from the kernel's format file
fields=$(sed -n 's/^\tfield:.* \([a-z_0-9]*\)\(\[.*\]\)\?;.*/\1/p' \
	$TRACEFS/events/block/block_rq_issue/format | grep -v '^common_')
cols=$(q "select name from pragma_table_info('block_rq_issue')")
for f in $fields; do
	grep -qx "$f" <<<"$cols" || fail "column $f missing from block_rq_issue: $cols"
done

# 6. losses: a buffer far too small for 1,000,000 write() calls; lost_events has a row
# per page the kernel flagged (as ftzdump counts them) and rows == the kernel's
# "read events" counters
"$FTREC" record -q -e syscalls:sys_enter_write -b 8 -o "$T/loss.ftz" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=1000000 2>/dev/null || fail "ftrec record (loss) failed"
"$FTZDUMP" -q "$T/loss.ftz" >"$T/loss.dump" || fail "ftzdump failed"
ql() { "$FTANA" sql "$T/loss.ftz" "$1" --csv | tail -n +2; }
for cpu in $(awk '$1 == "cpu" { print $2 }' "$T/loss.dump"); do
	want=$(awk -v c=$cpu '$1 == "cpu" && $2 == c { print $8 }' "$T/loss.dump")
	got=$(ql "select count(*) from lost_events where cpu = $cpu")
	[ "$want" = "$got" ] || fail "cpu $cpu: $got lost_events rows, ftzdump $want flagged pages"
done
[ "$(ql "select sum(read) from cpu_stats_delta")" = "$(ql "select count(*) from events")" ] ||
	fail "loss capture: rows != kernel read events"
[ "$(ql "select count(*) from lost_events")" -gt 0 ] || echo "note: no loss happened this time"

# 7. cache outside a read-only directory
mkdir "$T/ro" "$T/cache"
mount -t tmpfs tmpfs "$T/ro" && cp "$T/blk.ftz" "$T/ro/" && mount -o remount,ro "$T/ro" ||
	fail "cannot set up a read-only directory"
XDG_CACHE_HOME="$T/cache" "$FTANA" info "$T/ro/blk.ftz" >/dev/null || fail "info on read-only dir"
# info builds nothing (issue 23): it reads the capture
ls "$T/cache/ftana/"blk.ftz-*.db >/dev/null 2>&1 && fail "ftana info built a database"
XDG_CACHE_HOME="$T/cache" "$FTANA" sql "$T/ro/blk.ftz" "select count(*) from events" >/dev/null ||
	fail "sql on read-only dir"
ls "$T/cache/ftana/"blk.ftz-*.db >/dev/null 2>&1 || fail "no cache under \$XDG_CACHE_HOME/ftana"
echo "ok: $total events, $(q "select count(distinct stack_id) from stacks") distinct stacks"
