/* c_malloc: a plain C program that only uses malloc, realloc and free. Linked
 * with libdstd it runs unchanged under dstdrun; its memory comes from node
 * 0's partition of the global heap.
 *
 *   build/bin/dstdrun -n 4 build/bin/c_malloc
 */
#include <stdio.h>
#include <stdlib.h>

struct cell {
  long value;
  struct cell* next;
};

int main(void) {
  struct cell* list = NULL;
  for (long i = 1; i <= 1000000; ++i) {
    struct cell* c = malloc(sizeof *c);
    if (c == NULL) return 1;
    c->value = i;
    c->next = list;
    list = c;
  }
  long* squares = NULL;
  for (long n = 1; n <= 1000; ++n) {
    squares = realloc(squares, (size_t)n * sizeof *squares);
    if (squares == NULL) return 1;
    squares[n - 1] = n * n;
  }
  long sum = 0, square_sum = 0;
  while (list != NULL) {
    struct cell* next = list->next;
    sum += list->value;
    free(list);
    list = next;
  }
  for (long n = 0; n < 1000; ++n) square_sum += squares[n];
  free(squares);
  printf("sum = %ld, sum of squares = %ld\n", sum, square_sum);
  return 0;
}
