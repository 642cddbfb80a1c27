# Throughput against the average segment length, one line per implementation.
# plot.c sets: datafile, outfile, title, ncols (columns: seg, then one per implementation),
#   colours (one per implementation, the same in every chart).
set terminal pngcairo enhanced size 1000,650 font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set title title noenhanced
set key outside below horizontal noenhanced
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "average segment length (log_2 scale)"
set ylabel "throughput (G items/s, log scale)"
set grid xtics ytics
set offsets graph 0.03, graph 0.03, 0, 0
# column(c) in an expression: an unmeasured length breaks the line instead of being bridged.
plot for [c=2:ncols] datafile using 1:(column(c)) with linespoints lw 2 pt 7 ps 0.9 \
     lc rgb word(colours, c - 1) title columnheader(c)
