package io.rowmatch.spark.expression;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The rare rows a kernel does not decide itself (an ANSI overflow, a decimal whose exact intermediate passes 128
 * bits or 38 digits, a string that is not valid UTF-8 under a pattern that counts characters): Spark's own
 * expression evaluates the row on its children's values, so the answer, or the error with its message and query
 * context, is exactly Spark's. The copy keeps the expression's origin (TreeNode.makeCopy), hence its context.
 */
final class RowFallback {
  private RowFallback() {}

  /** Spark's value of {@code e} at row r given its children's evaluated vectors. */
  static Object eval(Expression e, Vec[] children, int r) {
    List<Expression> literals = new ArrayList<>(children.length);
    List<Expression> original = CollectionConverters.asJava(e.children());
    for (int i = 0; i < children.length; i++) {
      literals.add(new Literal(children[i].sparkValue(r), original.get(i).dataType()));
    }
    Expression bound = e.withNewChildren(CollectionConverters.asScala(literals).toSeq());
    return bound.eval(null);
  }
}
