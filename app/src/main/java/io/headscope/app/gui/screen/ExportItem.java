package io.headscope.app.gui.screen;

import javafx.beans.value.ObservableBooleanValue;

/**
 * One entry of the Export menu that a screen offers.
 *
 * @param id the menu item's node id (tests click it)
 * @param text the menu item's words
 * @param action asks for a file and writes it (through the dialog service)
 * @param disabled true while there is nothing to export
 */
public record ExportItem(String id, String text, Runnable action, ObservableBooleanValue disabled) {}
