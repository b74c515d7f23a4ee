#!/usr/bin/env bash
# Run the command of every row of docs/explanation/performance.md, one after
# the other, and keep each one's output, so that the whole table is measured
# in one sitting on one machine (ratios from different days and loads do not
# compare).
#
#   benchmarks/every_row.sh OUT_DIR PURE_BIN [COMPILED_BIN]
#
# PURE_BIN is the bin/ folder of a venv with this checkout installed pure
# (`pip install -e ".[test]"`), COMPILED_BIN that of a venv with the compiled
# build (`CRAWLSIM_BUILD=compiled pip install ".[test]"`); without it the
# compiled rows are skipped.  Each row writes OUT_DIR/NAME.out (the script's
# own output, JSON where it prints JSON) and OUT_DIR/NAME.err (its messages
# and a last line `TIME <wall> wall <user> user <sys> sys <max RSS> maxKB`
# from /usr/bin/time); OUT_DIR/progress.log has when each row ran and the
# load average then.  Nothing else should run on the machine meanwhile: the
# whole table takes about an hour on 2 cores, most of it the 10,000,000-page
# scaling rows (last, so you can stop before them).  Two figures of the page
# are measured by hand, as their rows say: the app opening a 100,000-page
# trace (in a tmux pane) and the cost of compiling in `pip install .`; the
# trace row deletes its 135 MB trace, so write one again for the app.  The
# fidelity row exits 1 when a scenario is outside 10 % (polite is, see
# benchmarks/REAL.md): progress.log shows that exit status, not a crash.
#
# To compare two checkouts, run it in each, or interleave their rows with
# `ROWS=name1,name2 benchmarks/every_row.sh ...`, naming groups of rows:
# simbfs, knobs, knobsmall, tracemem, tui, linkgen, dropin, check, animate,
# trace, scrapy, fidelity, scaling (all of them by default).
set -uo pipefail
if [ $# -lt 2 ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
fi
for bin in "$2" ${3:+"$3"}; do
    if [ ! -x "$bin/python" ] || [ ! -x "$bin/crawlsim" ]; then
        echo "every_row.sh: $bin has no python and crawlsim: expected a venv's bin/ folder with crawlsim installed" >&2
        exit 2
    fi
done
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
pure=$(cd "$2" && pwd)
compiled=${3:+$(cd "$3" && pwd)}
cd "$(dirname "$0")/.."
all=simbfs,knobs,knobsmall,tracemem,tui,linkgen,dropin,check,animate,trace,scrapy,fidelity,scaling
rows=${ROWS:-$all}
for name in ${rows//,/ }; do
    if [[ ",$all," != *",$name,"* ]]; then
        echo "every_row.sh: ROWS names '$name'; expected some of $all" >&2
        exit 2
    fi
done
wanted() { [[ ",$rows," == *",$1,"* ]]; }
log() { echo "$(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/progress.log"; }
row() { # NAME BIN COMMAND...: run COMMAND with BIN first on PATH
    local name=$1 bin=$2
    shift 2
    log "start $name"
    PATH="$bin:$PATH" /usr/bin/time -f "TIME %e wall %U user %S sys %M maxKB" "$@" \
        >"$out/$name.out" 2>"$out/$name.err"
    log "end $name (exit $?)"
}
builds=(pure)
[ -n "$compiled" ] && builds+=(compiled)
bin_of() { if [ "$1" = pure ]; then echo "$pure"; else echo "$compiled"; fi; }

if wanted simbfs; then
    row simbfs_pure "$pure" python benchmarks/sim_vs_bfs.py --cli --repeat 2
    [ -n "$compiled" ] && row simbfs_compiled "$compiled" \
        python benchmarks/sim_vs_bfs.py --cli --no-tracemalloc --no-textbook --repeat 2
fi
for b in "${builds[@]}"; do
    wanted knobs && row "knobs_$b" "$(bin_of "$b")" \
        python benchmarks/knobs.py --repeat 2 --json --scenarios million,busiest-host,one-big-host
done
wanted knobsmall && row knobsmall_pure "$pure" python benchmarks/knobs.py --repeat 2 --json \
    --scenarios variants,trap,mirrors,polite,isro,see-it,interview,interview-scope
wanted tracemem && row tracemem_pure "$pure" python benchmarks/trace_memory.py
wanted tui && row tui_pure "$pure" python benchmarks/tui_frame_time.py
wanted linkgen && row linkgen_pure "$pure" python benchmarks/link_generation.py
wanted dropin && row dropin_pure "$pure" python benchmarks/drop_in_speedup.py
if wanted check; then
    row checkfull_pure "$pure" crawlsim check examples/interview/reference_threadpool.py
    row checkquick_pure "$pure" crawlsim check examples/interview/reference_threadpool.py --quick
fi
if wanted animate; then
    row gif_pure "$pure" crawlsim animate see-it -o "$out/see-it.gif" -q --size 800x576 --dpi 80
    row png_pure "$pure" crawlsim animate see-it --normalize off \
        --frames start,first-duplicate,busiest-host-saturated,end -o "$out/see-it.png" -q \
        --size 1000x720 --dpi 100
fi
if wanted trace; then
    row tracew_pure "$pure" crawlsim trace million --max-pages 100000 -o "$out/t.jsonl"
    row tracer_pure "$pure" python -c "from crawlsim.views.session import read_trace; read_trace('$out/t.jsonl')"
    rm -f "$out/t.jsonl"
fi
wanted scrapy && row scrapy_pure "$pure" python benchmarks/throughput_vs_scrapy.py --install
wanted fidelity && row fidelity_pure "$pure" python benchmarks/fidelity.py --all --json "$out/fidelity.json"
for b in "${builds[@]}"; do
    wanted scaling && row "scaling_$b" "$(bin_of "$b")" python benchmarks/scaling.py
done
log "done"
