package io.rowmatch.spark.window;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * What a window needs of its input's order, without sorting it: each group's rows (equal partition keys) together,
 * in order within the group. Spark sorts the task's whole input by (partition keys, order) for its Window and its
 * final WindowGroupLimit, which only read the groups one after the other, each in order; here the rows are grouped by
 * a hash map and each group is sorted alone (stable: ties in arrival order, as Spark's sort keeps them), so a row
 * costs a hash lookup and a sort of its group, where Spark's sort compares it with about log2(n) others, every
 * partition key in turn when their prefix ties.
 *
 * <p>The groups are held until the input ends. When they exceed their buffer ({@link HeldBytes}: its size, or the task
 * memory Spark grants), every row held and the rest of the input go to {@code fallback} (Spark's sorter, which spills)
 * and its order is emitted instead: sorted by the partition keys too, so each group is still together.
 */
public final class GroupedSort<R, K> implements Iterator<R> {
  private static final class Group {
    Object[] rows = new Object[4];
    int size;
  }

  private final Iterator<? extends R> input;
  private final GroupRows<R, K> rows;
  private final Comparator<? super R> order;
  private final HeldBytes held;
  private final Function<Iterator<R>, Iterator<R>> fallback;

  private long groupCount;
  private boolean fellBack;
  private Iterator<? extends R> output;

  /**
   * @param order the order of a group's rows; null: any (arrival)
   * @param fallback sorts rows by (partition keys, order) the way the replaced sort would; called at most once, with
   *     the rows held (copies) followed by the rest of the input
   */
  public GroupedSort(Iterator<? extends R> input, GroupRows<R, K> rows, Comparator<? super R> order, HeldBytes held,
      Function<Iterator<R>, Iterator<R>> fallback) {
    this.input = input;
    this.rows = rows;
    this.order = order;
    this.held = held;
    this.fallback = fallback;
  }

  /** Groups made (0 when the rows went to the fallback before the input ended). */
  public long groupCount() {
    return groupCount;
  }

  /** Whether the rows exceeded the buffer and went to the fallback sort. */
  public boolean fellBack() {
    return fellBack;
  }

  @Override
  public boolean hasNext() {
    if (output == null) {
      output = group();
    }
    return output.hasNext();
  }

  @Override
  public R next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return output.next();
  }

  private Iterator<? extends R> group() {
    Map<K, Group> groups = new HashMap<>();
    while (input.hasNext()) {
      R row = input.next();
      K key = rows.key(row);
      Group g = groups.get(key);
      if (g == null) {
        g = new Group();
        groups.put(rows.copyKey(key), g);
        held.add(rows.keyBytes(key));
      }
      if (g.size == g.rows.length) {
        g.rows = Arrays.copyOf(g.rows, g.size * 2);
      }
      R copy = rows.copy(row);
      g.rows[g.size++] = copy;
      held.add(rows.bytes(copy));
      if (!held.fits() && input.hasNext()) {
        fellBack = true;
        Iterator<R> sorted = fallback.apply(new Drain(groups.values().iterator(), true));
        held.clear(); // the sorter has taken every row (into memory it holds from Spark itself)
        return sorted;
      }
    }
    groupCount = groups.size();
    return new Drain(groups.values().iterator(), false);
  }

  /**
   * The groups' rows in turn, each released as it is emitted. Output: each group sorted when reached, and the rows'
   * reservation returned after the last. Handoff to the fallback sort: the groups as they are, then the input not
   * read yet.
   */
  private final class Drain implements Iterator<R> {
    private final Iterator<Group> groups;
    private final boolean handoff;
    private Group current;
    private int position;

    Drain(Iterator<Group> groups, boolean handoff) {
      this.groups = groups;
      this.handoff = handoff;
    }

    @Override
    public boolean hasNext() {
      while (current == null || position == current.size) {
        if (!groups.hasNext()) {
          current = null;
          if (handoff) {
            return input.hasNext();
          }
          held.clear(); // every row is out
          return false;
        }
        current = groups.next();
        position = 0;
        if (!handoff && order != null) {
          sort(current);
        }
      }
      return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public R next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      if (current == null) {
        return input.next(); // handoff, past the groups
      }
      R row = (R) current.rows[position];
      current.rows[position++] = null;
      return row;
    }

    @SuppressWarnings("unchecked")
    private void sort(Group g) {
      // Arrays.sort on objects is stable (TimSort): ties keep their arrival order.
      Arrays.sort((R[]) g.rows, 0, g.size, (Comparator<R>) order);
    }
  }
}
