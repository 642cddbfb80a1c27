# Share of the copy bandwidth per configuration on two GPUs, tb and the best baseline.
# cross_gpu.c sets: datafile (columns: config, tb A, tb B, baseline A, baseline B), outfile, title,
#   colours (one per column after config).
set terminal pngcairo enhanced size 1400,650 font "sans,10"
set output outfile
set datafile separator "\t"
set datafile missing "-"
set title title noenhanced
set key outside below horizontal noenhanced autotitle columnheader
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -60 noenhanced font ",8"
set ylabel "percent of that GPU's measured copy bandwidth (%)"
set yrange [0:*]
set grid ytics
set arrow from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 lc rgb "#444444"
plot datafile using 2:xtic(1) lc rgb word(colours, 1), "" using 3 lc rgb word(colours, 2), \
     "" using 4 lc rgb word(colours, 3), "" using 5 lc rgb word(colours, 4)
