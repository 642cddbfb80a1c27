#include <stdio.h>
int smoke(void); int main(void){ printf("%d\n", smoke()); return 0; }
