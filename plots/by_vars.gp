# Throughput over the reference baseline against the number of variables k, one line per
# (implementation, size). plot.c sets: datafile, outfile, title, ylabel, ncols, kmax.
set terminal pngcairo enhanced size 1000,650 font "sans,11"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set title title noenhanced
set key outside below horizontal noenhanced
set xlabel "variables in the clause (k)"
set ylabel ylabel noenhanced
set xrange [0.7 : kmax + 0.3]
set xtics 1
set logscale y 2
set grid xtics ytics
# The baseline itself.
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5
plot for [c=2:ncols] datafile using 1:c with linespoints lw 2 pt 7 ps 0.9 title columnheader(c)
