# tb over its best baseline on GPU A (x) against the same on GPU B (y), one point per row both
# measured, coloured by algorithm; the diagonal: the same standing on both GPUs.
# cross_gpu.c sets: datafile (columns config, n, algorithm_index, ratio A, ratio B, best
#   baseline A, best baseline B), outfile, title, algs (the algorithms, space-separated, in
#   index order).
set terminal pngcairo enhanced size 1000,820 font "sans,11"
set output outfile
set datafile separator "\t"
set title title noenhanced
set key outside right top vertical noenhanced
set logscale xy 2
stats datafile using 4 nooutput
lo = STATS_min
hi = STATS_max
stats datafile using 5 nooutput
lo = (STATS_min < lo ? STATS_min : lo) / 1.1
hi = (STATS_max > hi ? STATS_max : hi) * 1.1
lo = lo > 0.9 ? 0.9 : lo
hi = hi < 1.1 ? 1.1 : hi
set xrange [lo : hi]
set yrange [lo : hi]
set size ratio -1
set xlabel "tb / best baseline on A (log_2 scale; > 1: tb faster)"
set ylabel "tb / best baseline on B (log_2 scale)"
# Round ratios as ticks: a narrow range would otherwise show the tick at 1 alone.
ticks = '("0.25" 0.25, "0.5" 0.5, "0.67" 0.667, "0.8" 0.8, "0.9" 0.9, "1" 1, "1.1" 1.1, "1.25" 1.25, "1.5" 1.5, "2" 2, "4" 4, "16" 16, "64" 64, "256" 256)'
set xtics @ticks
set ytics @ticks
set grid xtics ytics
set arrow 1 from lo, lo to hi, hi nohead dt 2 lc rgb "#444444"
set arrow 2 from 1, graph 0 to 1, graph 1 nohead lc rgb "#888888"
set arrow 3 from graph 0, first 1 to graph 1, first 1 nohead lc rgb "#888888"
set label 1 "tb loses on both" at graph 0.02, graph 0.04 font ",9" tc rgb "#b2182b"
set label 2 "tb wins on both" at graph 0.98, graph 0.96 right font ",9" tc rgb "#2166ac"
plot for [i=1:words(algs)] datafile using ($3 == i - 1 ? $4 : NaN):5 with points pt 7 ps 1.0 \
     lc i title word(algs, i)
