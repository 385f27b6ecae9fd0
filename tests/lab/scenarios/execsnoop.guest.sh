# execsnoop: `ftrec triage --syscalls` on a kernel with kprobes records the optional probes
# ftrec_exec_args (execve) and ftrec_execat_args, so `ftana report execsnoop` shows each
# exec's arguments. Each exec below is `workload exec PATH ARG0 ARG...`: exactly that
# argv, with plain words, an empty argument, spaces, quotes, a backslash, a byte that is
# not UTF-8, an escape byte, a tab, one of 300 bytes (cut at 256), 20 arguments (16
# shown), none but argv[0], and a $PATH search (a failed attempt, then the exec).
# Ground truth for the host: cases, one line per exec the kernel runs, its file name then
# each argument as hex (od), and each workload's pid (execs.out).
# lab-timeout: 120
. /lab/guest-lib.sh
cat > execs.sh <<'SH'
# hex ARG: "x" and its bytes in hex ("x" alone: an empty argument)
hex() { printf 'x%s' "$(printf %s "$1" | od -An -v -tx1 | tr -d ' \n')"; }
# one PATH ARG0 ARG...: the expected line, then the exec
one() {
	path=$1
	shift
	line=$path
	for a in "$@"; do line="$line $(hex "$a")"; done
	printf '%s\n' "$line" >> cases
	workload exec "$path" "$@"
}
nonutf=$(printf 'a\377b')
esc=$(printf '\033[2J')
tab=$(printf 'tab\tx')
long=$(printf '%0300d' 7)
one /bin/true prog plain 'two words' '' "it's" 'back\slash' 'x=1,y@2%-'
one /bin/true t2 "$nonutf" "$esc" "$tab"
one /bin/true t3 "$long"
one /bin/true t4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19
one /bin/true t5
# a $PATH search: /nonexistent/true fails (a hit, no exec), then /bin/true
printf '%s %s %s\n' /bin/true "$(hex true)" "$(hex after-a-failed-try)" >> cases
PATH=/nonexistent:/bin /lab/bin/workload exec true true after-a-failed-try
SH
: > cases
(capture execsnoop ftrec triage --syscalls -o execsnoop.ftz -- sh execs.sh) > execs.out 2> triage.err ||
	fail "ftrec triage: $(cat triage.err)"
grep -c '^exec=' execs.out | grep -qx 6 || fail "workloads did not all exec: $(cat execs.out)"
# the probes must not have been left out on this kernel (6.1: kprobes, +u, ustring)
if grep 'note:' triage.err; then fail "ftrec triage left something out"; fi
