# Host side of triage: $1 is its output dir (triage.ftz, triage_stacks.ftz and the
# workload's own files). The reports a newcomer tries on these samples show what the
# workload did: syscount its getppid calls, offcpu/runqlat its sleeps, iolat its
# reads, killsnoop its SIGTERM, execsnoop the programs it ran, opensnoop its open.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
for c in triage triage_stacks; do
	bursts=$(sed -n 's/^pid=//p' $c.bursts) sleeper=$(sed -n 's/^pid=//p' $c.sleeps)
	"$FTANA" report summary $c.ftz > $c.summary 2> $c.summary.err
	expect "$c: report summary exit" 0 $?
	expect "$c: summary names no missing event family" 0 "$(grep -c 'not in this capture' $c.summary)"
	expect "$c: iolat: the 8 reads of 64 KiB" "8 524288" \
		"$(q $c.ftz "SELECT count(*) || ' ' || sum(bytes) FROM io WHERE comm = 'dd'")"
	expect_ge "$c: iolat: each read >= null_blk's 2 ms" 2000000 \
		"$(q $c.ftz "SELECT min(lat_ns) FROM io WHERE comm = 'dd'")"
	expect "$c: killsnoop: SIGTERM to the killed sleep" "15" \
		"$("$FTANA" report killsnoop $c.ftz --csv | awk -F, -v p="$(cat $c.killed)" '$4 == p { print $7 }')"
	expect "$c: offcpu: the sleeper's 4 sleeps of >= 25 ms" 4 \
		"$(q $c.ftz "SELECT count(*) FROM offcpu WHERE pid = $sleeper AND status = 'ok' AND off_ns >= 25000000")"
	# dd and sleep are the guest's busybox applets, run without an exec
	expect "$c: execsnoop: the three workloads' execs" 3 \
		"$("$FTANA" report execsnoop $c.ftz --csv | grep -c ',/lab/bin/workload,')"
done
expect "triage: syscount: the bursts' getppid calls" "$(sed -n 's/^bursts=.* getppid=//p' triage.bursts)" \
	"$("$FTANA" report syscount --by both triage.ftz --csv | awk -F, -v p="$(sed -n 's/^pid=//p' triage.bursts)" '$1 == "getppid" && $2 == p { print $4 }')"
expect "triage: opensnoop: the open of guest-lib.sh" 1 \
	"$("$FTANA" report opensnoop triage.ftz --csv | grep -c '/lab/guest-lib.sh')"
expect_ge "triage_stacks: stacks attached" 1 "$(q triage_stacks.ftz "SELECT count(*) FROM stacks")"
check_done
