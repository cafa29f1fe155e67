package io.headscope.app.gui.predict;

import io.headscope.model.AttentionTrace;
import java.util.ArrayList;
import java.util.List;

/** One class of a classifier head: its probability before and after switching heads off. */
public record ClassRow(String label, double before, double after) {

  /** Empty when the model has no classifier. */
  public static List<ClassRow> of(AttentionTrace intact, AttentionTrace ablated, List<String> labels) {
    List<ClassRow> out = new ArrayList<>();
    if (intact.classProbabilities() == null || ablated.classProbabilities() == null) {
      return out;
    }
    for (int k = 0; k < intact.classProbabilities().length; k++) {
      out.add(new ClassRow(k < labels.size() ? labels.get(k) : "LABEL_" + k,
          intact.classProbabilities()[k], ablated.classProbabilities()[k]));
    }
    return out;
  }
}
