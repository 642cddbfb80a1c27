# One metric against n, a line per implementation (throughput and bandwidth charts).
# plot.c sets: datafile, outfile, title, note (second title line, may be ""), ylabel,
#   ncols (columns in datafile up to the last series: n, best_box, one per series; a spread
#   column per series follows, in the same order),
#   boxcol (column of "tb (best box)", 0 if none: its points are labelled with their NTxVT),
#   nmin, nmax (smallest and largest n), colours (one per series, in column order),
#   logy (1: log y axis, the values span decades), hundred (1: a bandwidth chart, draw 100%),
#   l2n (largest n whose input stayed in L2, 0 if none: marked, those points measure a warm cache).
set terminal pngcairo enhanced size 1000,650 font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
# Names such as scan_exclusive must not turn into subscripts.
set title (note eq "" ? title : title."\n".note) noenhanced
set key outside below horizontal noenhanced
set logscale x 2
set format x "2^{%L}"
set mxtics 2
# A single size would give an empty x range.
if (nmin == nmax) set xrange [nmin / 2.0 : nmax * 2.0]
set xlabel "n (items, log_2 scale); error bars: +-1 standard deviation of the repetitions"
set ylabel ylabel noenhanced
set grid xtics ytics
if (logy) { set logscale y 10 } else { set yrange [0:*] }
if (hundred) set arrow from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 lc rgb "#444444"
if (l2n > 0) set arrow from first l2n * 1.41, graph 0 to first l2n * 1.41, graph 1 nohead dashtype 3 lc rgb "#888888"
if (l2n > 0) set label "fits L2 (warm cache) <" at first l2n * 1.41, graph 0.97 right font ",9" tc rgb "#666666"
# Room for the box labels above the highest points and at both ends of the axis.
set offsets graph 0.03, graph 0.03, graph 0.08, 0
nseries = ncols - 2
labels = boxcol > 0 ? sprintf(", datafile using 1:%d:2 with labels offset 0,1 font ',9' noenhanced notitle", boxcol) : ""
# column(c) inside an expression: an unmeasured size breaks the line instead of being bridged.
plot for [c=3:2+nseries] datafile using 1:(column(c)):(column(c + nseries)) \
     with yerrorlines lw 2 pt 7 ps 0.8 lc rgb word(colours, c - 2) title columnheader(c) @labels
