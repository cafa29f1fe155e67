package io.headscope.app.gui.main;

import io.headscope.model.core.HeadMask;
import java.util.ArrayDeque;
import java.util.Deque;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The undo and redo stacks of head switches: each step is the mask before and after and what it did
 * ("switch 8-7 off"), so a slip costs one Ctrl+Z, not a search for which head went off. The names of
 * the next undo and redo are properties, "" when there is none, for the Heads menu to show.
 */
final class SwitchHistory {
  /** One change of the switches. */
  record Step(HeadMask before, HeadMask after, String what) {}

  /** Far more than anyone undoes; keeps a long session from growing without end. */
  static final int LIMIT = 200;

  private final Deque<Step> undo = new ArrayDeque<>();
  private final Deque<Step> redo = new ArrayDeque<>();
  private final ReadOnlyStringWrapper undoName = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper redoName = new ReadOnlyStringWrapper("");

  /** Records a new change; what could be redone is gone (as in any editor). */
  void record(HeadMask before, HeadMask after, String what) {
    undo.push(new Step(before, after, what));
    if (undo.size() > LIMIT) {
      undo.removeLast();
    }
    redo.clear();
    publish();
  }

  /** The step to undo (moved to the redo stack), or null. */
  Step undo() {
    Step s = undo.poll();
    if (s != null) {
      redo.push(s);
    }
    publish();
    return s;
  }

  /** The step to redo (moved back to the undo stack), or null. */
  Step redo() {
    Step s = redo.poll();
    if (s != null) {
      undo.push(s);
    }
    publish();
    return s;
  }

  /** Forgets everything (a new model: its heads are not the old one's). */
  void clear() {
    undo.clear();
    redo.clear();
    publish();
  }

  ReadOnlyStringProperty undoNameProperty() {
    return undoName.getReadOnlyProperty();
  }

  ReadOnlyStringProperty redoNameProperty() {
    return redoName.getReadOnlyProperty();
  }

  private void publish() {
    undoName.set(undo.isEmpty() ? "" : undo.peek().what());
    redoName.set(redo.isEmpty() ? "" : redo.peek().what());
  }
}
