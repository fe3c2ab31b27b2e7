package io.rowmatch.spark.window;

import static io.rowmatch.spark.window.GroupTopRowsTest.ORDER;
import static io.rowmatch.spark.window.GroupTopRowsTest.ROWS;
import static io.rowmatch.spark.window.GroupTopRowsTest.randomRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.rowmatch.spark.window.GroupTopRowsTest.Grant;
import io.rowmatch.spark.window.GroupTopRowsTest.Row;

/**
 * GroupedSort against what a window reads of a sort by (group, value): every group's rows together (each group
 * once), within a group in (value, arrival) order, every input row exactly once. Past the buffer, the fallback gets
 * every row (those held, then the rest) and its order is the output.
 */
class GroupedSortTest {
  /** The full sort the fallback stands for: by group (nulls first), then value, then arrival. */
  private static final Comparator<Row> FULL = Comparator
      .comparing(Row::group, Comparator.nullsFirst(Comparator.<Integer>naturalOrder())).thenComparing(ORDER)
      .thenComparingInt(Row::seq);

  /** Groups contiguous, each once; within a group sorted by (value, arrival) when ordered; a permutation. */
  private static void assertWindowOrder(List<Row> input, List<Row> out, boolean ordered, String ctx) {
    assertEquals(input.size(), out.size(), ctx);
    assertEquals(new HashSet<>(input), new HashSet<>(out), ctx);
    Set<Integer> done = new HashSet<>();
    for (int i = 0; i < out.size(); i++) {
      Row r = out.get(i);
      boolean sameAsPrevious = i > 0 && Objects.equals(out.get(i - 1).group(), r.group());
      if (!sameAsPrevious) {
        assertTrue(done.add(r.group()), ctx + ": group " + r.group() + " appears twice");
      } else if (ordered) {
        Row p = out.get(i - 1);
        int c = ORDER.compare(p, r);
        assertTrue(c < 0 || (c == 0 && p.seq() < r.seq()), ctx + ": " + p + " before " + r);
      }
    }
  }

  private static List<Row> run(List<Row> input, Comparator<Row> order, long buffer, boolean[] fellBack) {
    return run(input, order, new HeldBytes(buffer, HeldBytes.Memory.NONE), fellBack);
  }

  private static List<Row> run(List<Row> input, Comparator<Row> order, HeldBytes buffer, boolean[] fellBack) {
    GroupedSort<Row, Integer> sort = new GroupedSort<>(input.iterator(), ROWS, order, buffer, held -> {
      List<Row> all = new ArrayList<>();
      held.forEachRemaining(all::add);
      all.sort(FULL);
      return all.iterator();
    });
    List<Row> out = new ArrayList<>();
    sort.forEachRemaining(out::add);
    fellBack[0] = sort.fellBack();
    return out;
  }

  @Test
  void groupsTogetherEachInOrder() {
    Random rnd = new Random(5);
    for (int n : new int[] {0, 1, 2, 63, 64, 65, 700, 4000}) {
      for (int trial = 0; trial < 8; trial++) {
        List<Row> input = randomRows(rnd, n, 1 + rnd.nextInt(trial % 2 == 0 ? 3 : 200), 1 + rnd.nextInt(30));
        boolean[] fellBack = new boolean[1];
        String ctx = "n " + n + " trial " + trial;
        assertWindowOrder(input, run(input, ORDER, Long.MAX_VALUE, fellBack), true, ctx);
        assertFalse(fellBack[0], ctx);
        // No order within the group (a window without ORDER BY): arrival order, groups still together.
        List<Row> unordered = run(input, null, Long.MAX_VALUE, fellBack);
        assertWindowOrder(input, unordered, false, ctx + " unordered");
      }
    }
  }

  @Test
  void pastTheBufferEveryRowGoesToTheFallbackSort() {
    Random rnd = new Random(6);
    for (long buffer : new long[] {0, 100, 5000}) {
      List<Row> input = randomRows(rnd, 3000, 40, 25);
      boolean[] fellBack = new boolean[1];
      List<Row> out = run(input, ORDER, buffer, fellBack);
      assertTrue(fellBack[0], "buffer " + buffer);
      List<Row> expected = new ArrayList<>(input);
      expected.sort(FULL);
      assertEquals(expected, out, "buffer " + buffer);
    }
  }

  @Test
  void memoryRefusedGoesToTheFallbackAndEveryReservationIsReturned() {
    Random rnd = new Random(7);
    for (long grantSteps : new long[] {0, 1, 5, Long.MAX_VALUE / 1000}) {
      List<Row> input = randomRows(rnd, 2000, 1 + rnd.nextInt(100), 30);
      Grant grant = new Grant(grantSteps * 100); // a step of 100 bytes: ten rows or keys
      boolean[] fellBack = new boolean[1];
      List<Row> out = run(input, ORDER, new HeldBytes(Long.MAX_VALUE, grant, 100), fellBack);
      String ctx = "grant of " + grantSteps + " steps";
      if (grantSteps < 10) {
        assertTrue(fellBack[0] && grant.refused > 0, ctx);
        List<Row> expected = new ArrayList<>(input);
        expected.sort(FULL);
        assertEquals(expected, out, ctx);
      } else {
        assertFalse(fellBack[0], ctx);
        assertWindowOrder(input, out, true, ctx);
        assertTrue(grant.peak >= 2000 * 10, ctx + ": the rows held were not all reserved");
      }
      assertEquals(0, grant.reserved, ctx + ": reservation not returned");
    }
  }
}
