package io.rowmatch.spark.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.rowmatch.spark.window.GroupTopRows.Kind;

/**
 * GroupTopRows against the obvious reference: sort each group stably by (value, arrival), number the rows as the
 * ranking function does, keep those within the limit. Without flushes the kept rows are exactly the reference's;
 * with a buffer small enough to flush they are a superset of it inside the input, and the reference applied to
 * them gives the reference of the input (what Spark's final limit computes).
 */
class GroupTopRowsTest {
  /** A row: its group, its order value (null sorts first), its arrival number. */
  record Row(Integer group, Integer value, int seq) {}

  static final Comparator<Row> ORDER =
      Comparator.comparing(Row::value, Comparator.nullsFirst(Comparator.<Integer>naturalOrder()));

  static final GroupRows<Row, Integer> ROWS = new GroupRows<>() {
    @Override public Integer key(Row row) { return row.group(); }
    @Override public Integer copyKey(Integer key) { return key; }
    @Override public Row copy(Row row) { return row; }
    @Override public long bytes(Row row) { return 10; }
    @Override public long keyBytes(Integer key) { return 10; }
  };

  /** Task memory granting up to {@code max} bytes; counts what is reserved now and at most. */
  static final class Grant implements HeldBytes.Memory {
    final long max;
    long reserved;
    long peak;
    int refused;

    Grant(long max) {
      this.max = max;
    }

    @Override
    public boolean tryReserve(long bytes) {
      if (reserved + bytes > max) {
        refused++;
        return false;
      }
      reserved += bytes;
      peak = Math.max(peak, reserved);
      return true;
    }

    @Override
    public void release(long bytes) {
      reserved -= bytes;
      assertTrue(reserved >= 0, "released more than reserved");
    }
  }

  private static List<Row> run(List<Row> input, Kind kind, int limit, long buffer, long[] flushes) {
    return run(input, kind, limit, new HeldBytes(buffer, HeldBytes.Memory.NONE), flushes);
  }

  private static List<Row> run(List<Row> input, Kind kind, int limit, HeldBytes held, long[] flushes) {
    GroupTopRows<Row, Integer> top = new GroupTopRows<>(input.iterator(), ROWS, ORDER, kind, limit, held);
    List<Row> out = new ArrayList<>();
    top.forEachRemaining(out::add);
    if (flushes != null) {
      flushes[0] = top.flushes();
    }
    return out;
  }

  /** The reference: per group, stable order, ranks as Spark numbers them, rows within the limit (by arrival). */
  static List<Row> reference(List<Row> input, Kind kind, int limit) {
    Map<Integer, List<Row>> groups = new HashMap<>();
    for (Row r : input) {
      groups.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r);
    }
    List<Row> kept = new ArrayList<>();
    for (List<Row> g : groups.values()) {
      List<Row> sorted = new ArrayList<>(g);
      sorted.sort(ORDER); // List.sort is stable: ties stay in arrival order
      int rank = 0;
      int dense = 0;
      for (int i = 0; i < sorted.size(); i++) {
        boolean tie = i > 0 && ORDER.compare(sorted.get(i - 1), sorted.get(i)) == 0;
        if (!tie) {
          rank = i + 1;
          dense++;
        }
        int n = switch (kind) {
          case ROW_NUMBER -> i + 1;
          case RANK -> rank;
          case DENSE_RANK -> dense;
        };
        if (n <= limit) {
          kept.add(sorted.get(i));
        }
      }
    }
    kept.sort(Comparator.comparingInt(Row::seq));
    return kept;
  }

  private static List<Row> bySeq(List<Row> rows) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparingInt(Row::seq));
    return copy;
  }

  static List<Row> randomRows(Random rnd, int n, int groups, int values) {
    List<Row> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Integer g = rnd.nextInt(10) == 0 ? null : rnd.nextInt(groups);
      Integer v = rnd.nextInt(8) == 0 ? null : rnd.nextInt(values);
      rows.add(new Row(g, v, i));
    }
    return rows;
  }

  @Test
  void keepsExactlyTheRowsWithinTheLimitWithoutFlushes() {
    Random rnd = new Random(1);
    int[] sizes = {0, 1, 2, 63, 64, 65, 500, 3000};
    for (int n : sizes) {
      for (int trial = 0; trial < 12; trial++) {
        int groups = 1 + rnd.nextInt(trial % 2 == 0 ? 3 : 60);
        int values = 1 + rnd.nextInt(trial % 3 == 0 ? 4 : 1000); // few values: many ties
        List<Row> input = randomRows(rnd, n, groups, values);
        for (Kind kind : Kind.values()) {
          for (int limit : new int[] {1, 2, 5, 100}) {
            long[] flushes = new long[1];
            List<Row> got = run(input, kind, limit, Long.MAX_VALUE, flushes);
            String ctx = kind + " limit " + limit + " n " + n + " groups " + groups + " values " + values;
            assertEquals(0, flushes[0], ctx);
            assertEquals(reference(input, kind, limit), bySeq(got), ctx);
          }
        }
      }
    }
  }

  @Test
  void flushingKeepsASupersetThatGivesTheSameAnswer() {
    Random rnd = new Random(2);
    for (int trial = 0; trial < 40; trial++) {
      List<Row> input = randomRows(rnd, 200 + rnd.nextInt(2000), 1 + rnd.nextInt(20), 1 + rnd.nextInt(50));
      for (Kind kind : Kind.values()) {
        int limit = 1 + rnd.nextInt(6);
        long buffer = rnd.nextInt(20); // below one group and its row: a flush after every kept row or two
        long[] flushes = new long[1];
        List<Row> got = bySeq(run(input, kind, limit, buffer, flushes));
        String ctx = kind + " limit " + limit + " buffer " + buffer;
        assertTrue(flushes[0] > 0, ctx);
        List<Row> expected = reference(input, kind, limit);
        assertTrue(got.containsAll(expected), ctx);
        assertTrue(input.containsAll(got), ctx);
        assertEquals(got.size(), got.stream().distinct().count(), ctx + ": a row emitted twice");
        assertEquals(expected, reference(got, kind, limit), ctx);
      }
    }
  }

  @Test
  void memoryRefusedFlushesAndEveryReservationIsReturned() {
    Random rnd = new Random(4);
    for (long grantSteps : new long[] {0, 1, 3, Long.MAX_VALUE / 1000}) {
      for (Kind kind : Kind.values()) {
        List<Row> input = randomRows(rnd, 1500, 1 + rnd.nextInt(300), 1 + rnd.nextInt(50));
        int limit = 1 + rnd.nextInt(4);
        Grant grant = new Grant(grantSteps * 100); // a step of 100 bytes: ten rows or keys
        long[] flushes = new long[1];
        List<Row> got = bySeq(run(input, kind, limit, new HeldBytes(Long.MAX_VALUE, grant, 100), flushes));
        String ctx = kind + " limit " + limit + " grant of " + grantSteps + " steps";
        List<Row> expected = reference(input, kind, limit);
        if (grantSteps < 10) {
          assertTrue(flushes[0] > 0 && grant.refused > 0, ctx);
          assertTrue(got.containsAll(expected) && input.containsAll(got), ctx);
          assertEquals(expected, reference(got, kind, limit), ctx);
        } else {
          assertEquals(0, flushes[0], ctx);
          assertEquals(expected, got, ctx);
        }
        assertTrue(grantSteps == 0 || grant.peak > 0, ctx + ": nothing was reserved");
        assertEquals(0, grant.reserved, ctx + ": reservation not returned");
      }
    }
  }

  @Test
  void everyGroupAndTieIsCounted() {
    // One group, every value equal: rank and dense_rank keep all (all rank 1), row_number the first two.
    List<Row> same = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      same.add(new Row(7, 3, i));
    }
    assertEquals(70, run(same, Kind.RANK, 2, Long.MAX_VALUE, null).size());
    assertEquals(70, run(same, Kind.DENSE_RANK, 1, Long.MAX_VALUE, null).size());
    assertEquals(List.of(same.get(0), same.get(1)), bySeq(run(same, Kind.ROW_NUMBER, 2, Long.MAX_VALUE, null)));
    GroupTopRows<Row, Integer> top =
        new GroupTopRows<>(randomRows(new Random(3), 1000, 17, 9).iterator(), ROWS, ORDER, Kind.RANK, 1,
            new HeldBytes(Long.MAX_VALUE, HeldBytes.Memory.NONE));
    top.forEachRemaining(r -> { });
    TreeMap<Integer, Integer> seen = new TreeMap<>(Comparator.nullsFirst(Comparator.naturalOrder()));
    randomRows(new Random(3), 1000, 17, 9).forEach(r -> seen.merge(r.group(), 1, Integer::sum));
    assertEquals(seen.size(), top.groupCount());
  }

  @Test
  void rejectsALimitBelowOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new GroupTopRows<>(List.<Row>of().iterator(), ROWS, ORDER, Kind.RANK, 0,
            new HeldBytes(1, HeldBytes.Memory.NONE)));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }
}
