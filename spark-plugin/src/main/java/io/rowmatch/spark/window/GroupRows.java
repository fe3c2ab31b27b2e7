package io.rowmatch.spark.window;

/**
 * How the window operators read rows' group keys, and copy and size what they keep (GroupTopRows, GroupedSort).
 *
 * @param <R> a row
 * @param <K> a group's key, compared by equals/hashCode
 */
public interface GroupRows<R, K> {
  /** The row's key; may be a reused object, valid until the next call. */
  K key(R row);

  /** A key to keep (the map's copy). */
  K copyKey(K key);

  /** A row to keep: input rows may be reused by their producer. */
  R copy(R row);

  /** Bytes a kept copy holds (with its share of the group's arrays). */
  long bytes(R row);

  /** Bytes a kept key and its group's entry hold. */
  long keyBytes(K key);
}
