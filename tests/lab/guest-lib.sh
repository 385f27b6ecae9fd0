# Sourced by scenario guest scripts (. /lab/guest-lib.sh): small shared helpers.
T=/sys/kernel/tracing
fail() { echo "FAIL: $*" >&2; exit 1; }
# Prints the arguments as one shell command line, quoted where needed.
quote_args() {
	for a in "$@"; do
		case $a in
		'' | *[!A-Za-z0-9_./:=,+@%-]*) printf "'%s' " "$(printf %s "$a" | sed "s/'/'\\\\''/g")" ;;
		*) printf '%s ' "$a" ;;
		esac
	done
}
# Runs a command, echoing it first so guest.log shows exactly what was run.
run() { echo "+ $(quote_args "$@")"; "$@" || fail "exit $? from $1"; }
# capture NAME COMMAND...: runs a recording that writes NAME.ftz and keeps its exact command
# line in NAME.cmd (make samples publishes both).
capture() {
	name=$1
	shift
	quote_args "$@" | sed 's/ $//' > "$name.cmd"
	echo >> "$name.cmd"
	run "$@"
	[ -s "$name.ftz" ] || fail "$name.ftz was not written"
}
# same_as_planted LABEL WHAT: tracefs (tracefs-state.sh) must be byte for byte as planted
# (planted.txt, the scenario's own plant); after-LABEL.txt and diff-LABEL.txt are kept
# for the host's check. WHAT says what should be back, for the failure's message.
same_as_planted() {
	sh /lab/tracefs-state.sh > "after-$1.txt"
	if ! diff planted.txt "after-$1.txt" > "diff-$1.txt"; then
		cat "diff-$1.txt"
		fail "$1: tracefs is not as planted ($2)"
	fi
	echo "ok: $1: tracefs as planted, byte for byte"
}
