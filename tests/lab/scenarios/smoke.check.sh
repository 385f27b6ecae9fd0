# Host side of the smoke scenario: $1 is its output dir.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
for t in function function_graph; do
	expect "tracer $t offered" yes "$(tr ' ' '\n' < available_tracers | grep -qx "$t" && echo yes || echo no)"
done
expect "null_blk completion_nsec" 2000000 "$(cat nullb_completion_nsec)"
expect_ge "function tracer: vfs_read calls by dd" 1 "$(grep -c "^ *dd-[0-9]" function_vfs_read.txt)"
expect_ge "kprobe do_sys_openat2 hits by cat" 1 "$(cat kprobe_cat_hits)"
expect "round-trip sha256" "$(cut -d' ' -f1 roundtrip.sha256)" "$(sha256sum roundtrip.bin | cut -d' ' -f1)"
expect "round-trip size" 307200 "$(stat -c %s roundtrip.bin)"
check_done
