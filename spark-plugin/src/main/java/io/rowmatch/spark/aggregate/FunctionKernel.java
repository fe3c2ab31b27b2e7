package io.rowmatch.spark.aggregate;

import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * The executor half of a {@link SupportedFunction}: which kernel runs a planned function, and how its partial
 * buffers of single rows are formed when a partial aggregate stops aggregating ({@link PartialPassThrough}).
 * Each function declares its kernels as constants in its own file ({@link #of}). A {@link FunctionSpec}
 * carries one; specs are built on the driver and shipped to the executors, where a kernel deserializes by
 * its name to the same constant.
 */
public final class FunctionKernel implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Makes the kernel of one function over one partition. */
  @FunctionalInterface
  public interface Factory {
    AggregateKernel make(FunctionSpec spec, BufferAllocator allocator, String timeZone);
  }

  /**
   * Appends f's buffer columns for the batch's {@code rows} rows to {@code out}, each row's buffer as Spark's
   * update expressions make it from the initial buffer. Columns made here come from {@code p.own} (closed by
   * the caller through {@code owned}); a buffer that equals an input column may share that column.
   */
  @FunctionalInterface
  public interface PassThrough {
    void buffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows, List<FieldVector> out,
        List<FieldVector> owned);
  }

  private static final Map<String, FunctionKernel> BY_NAME = new ConcurrentHashMap<>();

  private final String name;
  private final transient Factory factory;
  private final transient PassThrough passThrough;

  private FunctionKernel(String name, Factory factory, PassThrough passThrough) {
    this.name = name;
    this.factory = factory;
    this.passThrough = passThrough;
  }

  /** A kernel constant, under a name unique among all functions' kernels; {@code passThrough} may be null. */
  static FunctionKernel of(String name, Factory factory, PassThrough passThrough) {
    FunctionKernel k = new FunctionKernel(name, factory, passThrough);
    if (BY_NAME.putIfAbsent(name, k) != null) {
      throw new IllegalStateException("two aggregate kernels named " + name);
    }
    return k;
  }

  public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    return factory.make(spec, allocator, timeZone);
  }

  /** Whether a Partial-mode function's buffers can be formed row by row (without it the aggregate never skips). */
  public boolean passesThrough() {
    return passThrough != null;
  }

  void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows, List<FieldVector> out,
      List<FieldVector> owned) {
    if (passThrough == null) {
      throw new IllegalStateException("no pass-through for " + f.description);
    }
    passThrough.buffers(f, p, columns, rows, out, owned);
  }

  @Override
  public String toString() {
    return name;
  }

  /** The constant of this name in this JVM (the functions' classes declare them when the registry loads). */
  private Object readResolve() throws ObjectStreamException {
    AggregateFunctions.load();
    FunctionKernel k = BY_NAME.get(name);
    if (k == null) {
      throw new InvalidObjectException("no aggregate kernel named " + name);
    }
    return k;
  }
}
