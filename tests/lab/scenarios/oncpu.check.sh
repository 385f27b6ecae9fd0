# Host side of oncpu: $1 is its output dir. Durations of the workload's calls of the
# traced function, with and without -C, against the workload's 20 ms sleeps.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
m=$(cat expected_sleeps)
durs() { # FILE.ftz WORKLOAD-OUT: "count min max" of the workload's returns, in us
	q "$1" "SELECT count(*), min(rettime - calltime) / 1000, max(rettime - calltime) / 1000
		FROM funcgraph_exit WHERE pid = $(sed -n 's/^pid=//p' "$2") AND depth = 0" | tr ',' ' '
}
read -r n min max <<< "$(durs slept.ftz slept.wl)"
expect "funcslower: the workload's calls" "$m" "$n"
expect_ge "funcslower: shortest call (us), the sleep included" 20000 "$min"
read -r n min max <<< "$(durs oncpu.ftz oncpu.wl)"
expect "funcslower -C: the workload's calls (on-CPU time >= 1 us)" "$m" "$n"
expect "funcslower -C: longest call under 5 ms (on the CPU only)" yes "$([ "$max" -lt 5000 ] && echo yes || echo "no: $max us")"
read -r n min max <<< "$(durs graph_slept.ftz graph_slept.wl)"
expect "funcgraph: the workload's calls" "$m" "$n"
expect_ge "funcgraph: shortest call (us), the sleep included" 20000 "$min"
read -r n min max <<< "$(durs graph_oncpu.ftz graph_oncpu.wl)"
expect "funcgraph -C: the workload's calls" "$m" "$n"
expect "funcgraph -C: longest call under 5 ms" yes "$([ "$max" -lt 5000 ] && echo yes || echo "no: $max us")"
pid=$(sed -n 's/^pid=//p' graph_oncpu.wl)
expect "funcgraph -m 1: nothing below FUNC (FUNC is level 1)" 0 \
	"$(q graph_oncpu.ftz "SELECT count(*) FROM funcgraph_entry WHERE pid = $pid AND depth > 0")"
expect "funcgraph -h: -m counts FUNC as level 1" 1 "$(grep -c 'FUNC itself being level 1' funcgraph.help)"
check_done
