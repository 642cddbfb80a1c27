# Geometric mean of A time / B time per family: tb and the baselines as two series, log y axis,
# a dashed line at 1 (above it B is faster).
# compare.c sets: datafile (columns index, family, all, tb, baselines, matched), outfile, title,
#   colours (tb's, then the baselines').
set terminal pngcairo enhanced size 900,600 font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set title title."\ngeometric mean of A time / B time per family (above 1: B is faster)" noenhanced
set key outside below horizontal noenhanced
set xtics noenhanced
set logscale y 2
set ylabel "A time / B time (log scale)"
# Ticks at round ratios: a narrow range would otherwise show the tick at 1 only.
set ytics ("0.1" 0.1, "0.25" 0.25, "0.5" 0.5, "0.67" 0.667, "0.8" 0.8, "0.9" 0.9, "0.95" 0.95, \
           "1" 1, "1.05" 1.05, "1.1" 1.1, "1.25" 1.25, "1.5" 1.5, "2" 2, "4" 4, "10" 10)
set grid ytics
stats datafile using 1 nooutput
set xrange [-0.5 : STATS_max + 0.5]
# Fit the y axis to the values (and 1) rather than to whole powers of 2.
set autoscale yfix
set offsets 0, 0, graph 0.15, graph 0.1
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5
label(v) = sprintf("%.3f", v)
plot datafile using 1:(1):xtic(2) with points ps 0 notitle, \
     "" using ($1 - 0.12):4 with points pt 7 ps 1.6 lc rgb word(colours, 1) title "tb", \
     "" using ($1 - 0.12):4:(label($4)) with labels offset char 0,1.2 notitle, \
     "" using ($1 + 0.12):5 with points pt 5 ps 1.6 lc rgb word(colours, 2) title "baselines", \
     "" using ($1 + 0.12):5:(label($5)) with labels offset char 0,1.2 notitle
