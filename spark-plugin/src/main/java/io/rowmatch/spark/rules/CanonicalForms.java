package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.package$;
import org.apache.spark.sql.catalyst.plans.QueryPlan$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The pieces of a plan node's canonical form that Spark cannot build itself, because they sit inside the
 * planner's Java specs rather than in the node's Expression-typed fields. Spark's exchange and subquery
 * reuse (ReuseExchangeAndSubquery, ReuseAdaptiveSubquery, AQE's stage cache) match subtrees by
 * {@code plan.canonicalized}; QueryPlan.doCanonicalize normalizes only Expression fields, so a spec that
 * holds attributes (with their exprIds) or output names would make two equal subtrees differ. These
 * helpers apply Spark's own rules to them: attributes become their ordinal in the input they are read
 * from ({@code QueryPlan.normalizeExpressions}), output aliases lose their name and take their position as
 * id (as QueryPlan.doCanonicalize does), and top-level column names are dropped. Types, nullability,
 * ordinals, functions and flags stay, so what changes an answer still tells two nodes apart.
 */
public final class CanonicalForms {
  private CanonicalForms() {}

  /** An expression read from {@code input}: its attributes as ordinals of the input, then canonicalized. */
  public static <T extends Expression> T normalize(T e, List<Attribute> input) {
    return QueryPlan$.MODULE$.normalizeExpressions(e, package$.MODULE$.AttributeSeq(scalaSeq(input)));
  }

  public static List<Attribute> normalizeAll(List<Attribute> attributes, List<Attribute> input) {
    List<Attribute> out = new ArrayList<>(attributes.size());
    for (Attribute a : attributes) {
      out.add(normalize(a, input));
    }
    return out;
  }

  /**
   * Output expressions evaluated over {@code input}, as QueryPlan.doCanonicalize treats a node's output
   * list: an alias keeps its normalized child and loses its name, its id becomes its position.
   */
  public static List<NamedExpression> outputs(List<NamedExpression> outputs, List<Attribute> input) {
    List<NamedExpression> out = new ArrayList<>(outputs.size());
    for (int i = 0; i < outputs.size(); i++) {
      NamedExpression e = outputs.get(i);
      if (e instanceof Alias a) {
        Alias renamed = (Alias) a.withNewChild(normalize(a.child(), input)).withName("");
        out.add(renamed.withExprId(ExprId.apply(i)));
      } else {
        // A plain column (the common case): an attribute normalizes to an attribute.
        out.add((NamedExpression) (Object) normalize((Expression) (Object) e, input));
      }
    }
    return out;
  }

  /** Expressions already bound to ordinals (no attributes left): Spark's canonical form of each. */
  public static Expression[] bound(Expression[] expressions) {
    Expression[] out = new Expression[expressions.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = expressions[i].canonicalized();
    }
    return out;
  }

  /** The schema without its top-level column names (types, nested field names, nullability and metadata stay). */
  public static StructType withoutNames(StructType schema) {
    StructField[] fields = schema.fields();
    StructField[] out = new StructField[fields.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = withoutName(fields[i]);
    }
    return new StructType(out);
  }

  public static StructField withoutName(StructField f) {
    return f == null ? null : new StructField("", f.dataType(), f.nullable(), f.metadata());
  }

  // The Seq[Attribute] => AttributeSeq conversion is an implicit class of the expressions package object;
  // Java calls its factory (the class's own name is not expressible in Java).
  private static scala.collection.immutable.Seq<Attribute> scalaSeq(List<Attribute> input) {
    return CollectionConverters.asScala(input).toList();
  }
}
