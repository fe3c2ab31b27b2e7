package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** Kernel constants: specs cross Java serialization (driver to executor) and come back as the same constant. */
class FunctionKernelTest {
  private static Object roundTrip(Object o) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return in.readObject();
    }
  }

  @Test
  void specsDeserializeToTheSameKernelConstant() throws Exception {
    FunctionKernel[] all = {CountFunction.COUNT, SumFunction.SUM_LONG, SumFunction.SUM_DOUBLE,
        SumFunction.SUM_DECIMAL, AvgFunction.AVG_DOUBLE, AvgFunction.AVG_DECIMAL, MinMaxFunction.MIN_LONG,
        MinMaxFunction.MAX_LONG, MinMaxFunction.MIN_DOUBLE, MinMaxFunction.MAX_DOUBLE, MinMaxFunction.MIN_DECIMAL128,
        MinMaxFunction.MAX_DECIMAL128, MinMaxFunction.MIN_BYTES, MinMaxFunction.MAX_BYTES, FirstFunction.FIRST,
        LastFunction.LAST};
    for (FunctionKernel k : all) {
      assertSame(k, roundTrip(k), k.toString());
    }
    FunctionSpec spec = KernelHarness.spec(SumFunction.SUM_LONG, false, false, DataTypes.LongType,
        DataTypes.LongType);
    FunctionSpec back = (FunctionSpec) roundTrip(spec);
    assertSame(SumFunction.SUM_LONG, back.kernel());
    try (RootAllocator root = new RootAllocator(); AggregateKernel k = back.newKernel(root, "UTC")) {
      assertTrue(k instanceof SumLongKernel);
    }
  }

  @Test
  void passThroughIsDeclaredPerKernel() {
    assertTrue(SumFunction.SUM_LONG.passesThrough());
    assertFalse(SumFunction.SUM_DECIMAL.passesThrough());
    assertFalse(AvgFunction.AVG_DECIMAL.passesThrough());
    assertTrue(MinMaxFunction.MAX_BYTES.passesThrough());
    FunctionSpec merge = KernelHarness.spec(CountFunction.COUNT, true, false, DataTypes.LongType, DataTypes.LongType);
    assertFalse(PartialPassThrough.supports(merge), "merging stages never pass through");
  }

  @Test
  void kernelNamesAreUnique() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> FunctionKernel.of("COUNT", CountKernel::new, null));
    assertEquals("two aggregate kernels named COUNT", e.getMessage());
  }
}
