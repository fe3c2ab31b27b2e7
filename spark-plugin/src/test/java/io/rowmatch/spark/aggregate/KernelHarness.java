package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;

/**
 * Drives a kernel as HashAggregateRunner does: batches of rows with integer keys, numbered into dense
 * group ids in order of first appearance. Reads results back as Java objects per key.
 */
final class KernelHarness {
  final Map<Integer, Integer> groupOf = new HashMap<>();
  final List<Integer> keyOfGroup = new ArrayList<>();

  static StructField field(String name, DataType t) {
    return new StructField(name, t, true, Metadata.empty());
  }

  static FunctionSpec spec(FunctionKernel kind, boolean merge, boolean ignoreNulls, DataType result,
      DataType... buffers) {
    StructField[] bf = new StructField[buffers.length];
    int[] inputs = new int[merge ? buffers.length : 1];
    for (int i = 0; i < bf.length; i++) {
      bf[i] = field("b" + i, buffers[i]);
    }
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = i;
    }
    return new FunctionSpec(kind, inputs, merge, false, ignoreNulls, bf, field("r", result), kind.toString());
  }

  /** Feeds one batch whose row i has key keys[i]. */
  void feed(AggregateKernel kernel, ValueVector[] columns, int[] keys) {
    int[] ids = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      Integer g = groupOf.get(keys[i]);
      if (g == null) {
        g = keyOfGroup.size();
        groupOf.put(keys[i], g);
        keyOfGroup.add(keys[i]);
      }
      ids[i] = g;
    }
    kernel.update(columns, keys.length, ids, keyOfGroup.size());
  }

  int groupCount() {
    return keyOfGroup.size();
  }

  int[] keysInGroupOrder() {
    return keyOfGroup.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Per key, the vector's object at that key's group (getObject: Text, byte[], BigDecimal, Long...). */
  Map<Integer, Object> read(FieldVector v) {
    Map<Integer, Object> out = new HashMap<>();
    for (int g = 0; g < keyOfGroup.size(); g++) {
      Object o = v.getObject(g);
      out.put(keyOfGroup.get(g), o == null ? null : normalize(o));
    }
    return out;
  }

  /** Comparable forms: Text as String, byte[] as a List of bytes. */
  static Object normalize(Object o) {
    if (o instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    if (o instanceof byte[] b) {
      List<Byte> l = new ArrayList<>(b.length);
      for (byte x : b) {
        l.add(x);
      }
      return l;
    }
    return o;
  }
}
