package io.rowmatch.spark.window;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The rows of each group (rows with equal partition keys) whose rank can still be within a limit, without sorting
 * the input: what Spark's partial WindowGroupLimit keeps from a sort of the whole task's input by (partition keys,
 * order), here by one pass that holds, per group, the candidates so far in order.
 *
 * <p>Per row: one hash lookup of its group and, once the group holds its limit, one comparison with the group's
 * limit-th row; most rows are rejected by it. A kept row is inserted after the rows it ties with (a stable sort's
 * place), and the rows it pushes past the limit are dropped:
 *
 * <ul>
 *   <li>{@code row_number}: the first {@code limit} rows in (order, arrival), as a stable sort then take;
 *   <li>{@code rank}: every row with fewer than {@code limit} rows strictly before it (ties at the limit stay);
 *   <li>{@code dense_rank}: every row among the {@code limit} smallest distinct order values.
 * </ul>
 *
 * <p>A row is only dropped when this task's rows already rank it past the limit, so its rank over all rows is past it
 * too: the partial limit may keep more than it must, never less, and Spark's final limit, window and filter decide.
 * That is what bounds memory: when the kept rows exceed their buffer ({@link HeldBytes}: its size, or the task memory
 * Spark grants), all of them are emitted and the groups start again empty (more rows reach the final side; none are
 * lost).
 *
 * @param <R> a row; {@link GroupRows#copy} makes the copy kept (input rows may be reused by their producer)
 * @param <K> a group's key; {@link GroupRows#key} may reuse its result, {@link GroupRows#copyKey} makes the map's copy
 */
public final class GroupTopRows<R, K> implements Iterator<R> {
  /** The ranking function of the limit. */
  public enum Kind { ROW_NUMBER, RANK, DENSE_RANK }

  /** One group's kept rows, in order; ties in arrival order. */
  private static final class Group {
    Object[] rows = new Object[4];
    int size;
    /** Distinct order values among the rows (dense_rank only). */
    int distinct;
  }

  private final Iterator<? extends R> input;
  private final GroupRows<R, K> rows;
  private final Comparator<? super R> order;
  private final Kind kind;
  private final int limit;
  private final HeldBytes kept;

  private Map<K, Group> groups = new HashMap<>();
  private long groupCount;
  private long flushes;

  private Iterator<Group> emitting;
  private Group current;
  private int position;

  public GroupTopRows(Iterator<? extends R> input, GroupRows<R, K> rows, Comparator<? super R> order, Kind kind, int limit,
      HeldBytes kept) {
    if (limit < 1) {
      throw new IllegalArgumentException("a window group limit must be at least 1, got " + limit);
    }
    this.input = input;
    this.rows = rows;
    this.order = order;
    this.kind = kind;
    this.limit = limit;
    this.kept = kept;
  }

  /** Groups started so far (a group emitted by a flush and seen again counts twice). */
  public long groupCount() {
    return groupCount;
  }

  /** Times the kept rows exceeded the buffer and were emitted before the input ended. */
  public long flushes() {
    return flushes;
  }

  @Override
  public boolean hasNext() {
    while (true) {
      if (current != null && position < current.size) {
        return true;
      }
      current = null;
      if (emitting != null && emitting.hasNext()) {
        current = emitting.next();
        position = 0;
        continue;
      }
      if (emitting != null) {
        emitting = null;
        kept.clear(); // every row of the flush is out
      }
      if (!input.hasNext()) {
        return false;
      }
      consume();
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public R next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    R row = (R) current.rows[position];
    current.rows[position++] = null;
    return row;
  }

  /** Reads input until it ends or the kept rows exceed the buffer, then hands the groups over for emission. */
  private void consume() {
    while (input.hasNext()) {
      R row = input.next();
      K key = rows.key(row);
      Group g = groups.get(key);
      if (g == null) {
        g = new Group();
        groups.put(rows.copyKey(key), g);
        kept.add(rows.keyBytes(key));
        groupCount++;
      }
      offer(g, row);
      if (!kept.fits() && input.hasNext()) {
        flushes++;
        break;
      }
    }
    emitting = groups.values().iterator();
    groups = new HashMap<>();
  }

  @SuppressWarnings("unchecked")
  private void offer(Group g, R row) {
    int n = g.size;
    switch (kind) {
      case ROW_NUMBER -> {
        if (n >= limit && order.compare(row, (R) g.rows[limit - 1]) >= 0) {
          return;
        }
      }
      case RANK -> {
        if (n >= limit && order.compare(row, (R) g.rows[limit - 1]) > 0) {
          return;
        }
      }
      case DENSE_RANK -> {
        if (g.distinct >= limit && order.compare(row, (R) g.rows[n - 1]) > 0) {
          return;
        }
      }
    }
    int at = upperBound(g, row);
    // Only dense_rank counts distinct values: the other kinds need no comparison with the row's predecessor.
    boolean newValue = kind == Kind.DENSE_RANK && (at == 0 || order.compare((R) g.rows[at - 1], row) != 0);
    insert(g, at, rows.copy(row));
    switch (kind) {
      case ROW_NUMBER -> truncate(g, limit);
      case RANK -> {
        if (g.size > limit) {
          R last = (R) g.rows[limit - 1];
          int end = limit;
          while (end < g.size && order.compare((R) g.rows[end], last) == 0) {
            end++;
          }
          truncate(g, end);
        }
      }
      case DENSE_RANK -> {
        if (newValue && ++g.distinct > limit) {
          R largest = (R) g.rows[g.size - 1];
          int start = g.size - 1;
          while (start > 0 && order.compare((R) g.rows[start - 1], largest) == 0) {
            start--;
          }
          truncate(g, start);
          g.distinct--;
        }
      }
    }
  }

  /** The first position whose row orders after {@code row}: after every row it ties with. */
  @SuppressWarnings("unchecked")
  private int upperBound(Group g, R row) {
    int lo = 0;
    int hi = g.size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (order.compare((R) g.rows[mid], row) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private void insert(Group g, int at, R copy) {
    if (g.size == g.rows.length) {
      Object[] grown = new Object[g.rows.length * 2];
      System.arraycopy(g.rows, 0, grown, 0, g.size);
      g.rows = grown;
    }
    System.arraycopy(g.rows, at, g.rows, at + 1, g.size - at);
    g.rows[at] = copy;
    g.size++;
    kept.add(rows.bytes(copy));
  }

  @SuppressWarnings("unchecked")
  private void truncate(Group g, int size) {
    for (int i = size; i < g.size; i++) {
      kept.remove(rows.bytes((R) g.rows[i]));
      g.rows[i] = null;
    }
    g.size = Math.min(g.size, size);
  }
}
