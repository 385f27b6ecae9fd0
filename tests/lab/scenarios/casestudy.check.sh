# Host side of casestudy: $1 is its output dir. Each step of the article is checked the way
# the article reads it, through ftana's reports only, against what ftana did not compute:
# the readahead configured at each open (ra_at_open, ra_tuned, ra_at_reopen: sectors), the
# workload's answers (STEP.workload: pages touched, getrusage's major faults), the disk's
# counters around each capture (STEP.stat_before/after) and its request size limit.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
pid=$(sed -n 's/^pid=//p' workload.out)
ra_old=$(cat ra_at_open) ra_tuned=$(cat ra_tuned) ra_new=$(cat ra_at_reopen)
max_kb=$(cat disk_max_sectors_kb)
IFS=: read -r maj min < disk_dev
touched() { sed -n 's/^touched=\([0-9]*\) .*/\1/p' "$1.workload"; }
majflt() { sed -n 's/.* majflt=\([0-9]*\) .*/\1/p' "$1.workload"; }
# disk STEP FIELD: how much /sys/block/DISK/stat field FIELD grew during STEP
# (1 reads completed, 2 reads merged, 3 sectors read).
disk() { awk -v f="$2" 'NR == FNR { b = $f; next } { print $f - b }' "$1.stat_before" "$1.stat_after"; }
report() { "$FTANA" report "$@" 2> /dev/null; }

# ---- the staging itself: the tuning came before every capture, and each touched page was
# one page fault that read exactly one readahead window from the disk.
expect "staging: readahead lowered before the captures" "$ra_new" "$ra_tuned"
expect_ge "staging: readahead at open / after tuning" 2 $((ra_old / ra_tuned))
for s in case01_iolat case02_tpoint case03_funccount case04_funcslower case05_funcgraph \
	case06_kprobe_ra case07_kprobe_size case09_iolat case10_funccount case11_kprobe_ra case12_kprobe_size; do
	case $s in case0[1-7]_*) ra=$ra_old ;; *) ra=$ra_new ;; esac	# before or after the reopen (case08)
	expect "staging $s: major faults = pages touched" "$(touched $s)" "$(majflt $s)"
	expect "staging $s: sectors read = faults x readahead" $(($(touched $s) * ra)) "$(disk $s 3)"
done

# ---- 1. iosnoop -Q: the reads are as large as the OLD readahead before the reopen (whatever
# blockdev says), as the new one after; each request at most the disk's limit.
iolat_step() { # step, readahead in sectors
	local rows want
	rows=$(report iolat -Q -D "$maj,$min" --csv "$1.ftz" | sed 1d)	# ...,comm,pid,type,"MAJ,MIN",sector,bytes,que_ms,lat_ms
	want=$(($2 * 512))
	[ "$want" -le $((max_kb * 1024)) ] || want=$((max_kb * 1024))
	expect "1 iolat $1: requests = disk's reads" "$(disk "$1" 1)" "$(printf '%s\n' "$rows" | grep -c .)"
	expect "1 iolat $1: requests by the workload" "$(disk "$1" 1)" \
		"$(printf '%s\n' "$rows" | awk -F, -v p="$pid" '$3 == "workload" && $4 == p && $5 ~ /^R/' | grep -c .)"
	expect "1 iolat $1: requests of $want bytes" "$(disk "$1" 1)" \
		"$(printf '%s\n' "$rows" | awk -F, -v w="$want" '$(NF-2) == w' | grep -c .)"
	expect "1 iolat $1: KB read per page fault" $(($2 / 2)) \
		"$(printf '%s\n' "$rows" | awk -F, -v n="$(touched "$1")" '{ b += $(NF-2) } END { print b / 1024 / n }')"
}
iolat_step case01_iolat "$ra_old"
iolat_step case09_iolat "$ra_new"

# ---- 2. tpoint -s block_rq_insert for reads: every insert comes from a page fault's readahead.
stacks=$(report stacks --csv case02_tpoint.ftz | sed 1d)	# count,frames (root first, ';')
expect "2 stacks: inserts = disk's reads" "$(disk case02_tpoint 1)" \
	"$(printf '%s\n' "$stacks" | awk -F, '{ n += $1 } END { print n + 0 }')"
expect "2 stacks: inserts via filemap_fault > page_cache_ra_unbounded > read_pages" "$(disk case02_tpoint 1)" \
	"$(printf '%s\n' "$stacks" | awk -F, '$2 ~ /;exc_page_fault;.*;filemap_fault;(page_cache_ra_order;)?page_cache_ra_unbounded;read_pages;/ { n += $1 } END { print n + 0 }')"
expect "2 tpoint: printed inserts" "$(disk case02_tpoint 1)" "$(report tpoint case02_tpoint.ftz | grep -c ' block_rq_insert: ')"

# ---- 3. funccount: faults as the workload counted them; every bio the block layer took
# (submit_bio_noacct, after splitting to the disk's limit) became a request or merged
# into one; per fault that drops with the readahead.
funccount_step() { # step; sets ff (filemap_fault calls) and pieces (submit_bio_noacct calls)
	local rows
	rows=$(report funccount -p "$pid" --csv "$1.ftz" | sed 1d)	# func,count,rate_per_s
	ff=$(printf '%s\n' "$rows" | awk -F, '$1 == "filemap_fault" { print $2 }')
	pieces=$(printf '%s\n' "$rows" | awk -F, '$1 == "submit_bio_noacct" { print $2 }')
	expect "3 funccount $1: filemap_fault = major faults" "$(majflt "$1")" "$ff"
	expect "3 funccount $1: submit_bio_noacct = disk's reads + merges" \
		$(($(disk "$1" 1) + $(disk "$1" 2))) "$pieces"
	expect_ge "3 funccount $1: submit_bio >= 1 per fault" "$ff" \
		"$(printf '%s\n' "$rows" | awk -F, '$1 == "submit_bio" { print $2 }')"
}
funccount_step case03_funccount
before=$pieces ff_before=$ff
funccount_step case10_funccount
expect_ge "3 funccount: bios per fault before, at least readahead / request limit" \
	$((ra_old / 2 / max_kb)) $((before / ff_before))
expect "3 funccount: bios per fault after the reopen" 1 $((pieces / ff))

# ---- 4. funcslower filemap_fault 1000: the workload's faults, each slower than the disk's 2 ms.
rows=$(report funcslower --csv case04_funcslower.ftz | sed 1d)	# ts_s,cpu,comm,pid,dur_us,func,...
expect "4 funcslower: the workload's slow faults" "$(majflt case04_funcslower)" \
	"$(printf '%s\n' "$rows" | awk -F, -v p="$pid" '$3 == "workload" && $4 == p && $6 == "filemap_fault"' | grep -c .)"
expect "4 funcslower: of them under 2000 us (null_blk's delay)" 0 \
	"$(printf '%s\n' "$rows" | awk -F, -v p="$pid" '$4 == p && $5 < 2000' | grep -c .)"

# ---- 5. funcgraph -m 5 filemap_fault: the fault allocates and inserts one page per
# readahead page, and reads them through the filesystem's readahead.
tree=$(report funcgraph -p "$pid" --tree --csv case05_funcgraph.ftz | sed 1d)	# count,...,path
calls() { printf '%s\n' "$tree" | awk -F, -v p="$1" '$NF == p { n += $1 } END { print n + 0 }'; }
ra=filemap_fault\;page_cache_ra_order\;page_cache_ra_unbounded
expect "5 funcgraph: filemap_fault calls" "$(majflt case05_funcgraph)" "$(calls filemap_fault)"
expect "5 funcgraph: pages added by the readahead" $(($(touched case05_funcgraph) * ra_old / 8)) \
	"$(calls "$ra;filemap_add_folio")"
expect "5 funcgraph: ext4_readahead below read_pages" "$(majflt case05_funcgraph)" "$(calls "$ra;read_pages;ext4_readahead")"
expect_ge "5 funcgraph: waits for the disk (io_schedule)" 1 "$(calls filemap_fault\;io_schedule)"

# ---- 6. kprobe: the size each readahead reads, and the size the open file carries, are
# the readahead at open until the reopen (not the tuned one), the new one after; the
# readahead state is set by open(2).
kprobe_step() { # step, argument, expected value
	local rows
	rows=$(report kprobe -p "$pid" --csv "$1.ftz" | sed 1d)	# ts_s,cpu,pid,comm,probe,func,args,stack
	expect "6 kprobe $1: hits" "$(majflt "$1")" "$(printf '%s\n' "$rows" | grep -c .)"
	expect "6 kprobe $1: hits with $2=$3" "$(majflt "$1")" \
		"$(printf '%s\n' "$rows" | grep -c "[, ]$2=$3\( \|,\|$\)")"
}
kprobe_step case06_kprobe_ra nr_to_read $((ra_old / 8))
kprobe_step case07_kprobe_size ra_pages $((ra_old / 8))
kprobe_step case11_kprobe_ra nr_to_read $((ra_new / 8))
kprobe_step case12_kprobe_size ra_pages $((ra_new / 8))
rows=$(report kprobe -p "$pid" --csv case08_kprobe_open.ftz | sed 1d)
expect "6 kprobe -s file_ra_state_init: the workload's hits (its reopen)" 1 "$(printf '%s\n' "$rows" | grep -c .)"
expect "6 kprobe -s file_ra_state_init: from openat(2) via do_dentry_open" 1 \
	"$(printf '%s\n' "$rows" | grep -c ';__x64_sys_openat;.*;do_dentry_open;file_ra_state_init$')"
check_done
