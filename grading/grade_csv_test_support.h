// grading/grade_csv_test_support.h: reading and editing a gradebook.csv in the grader's
// tests, as an instructor's spreadsheet would: its rows and cells, one cell by student and
// column, and the file with one cell changed.
#ifndef STREAMLAB_GRADE_CSV_TEST_SUPPORT_H
#define STREAMLAB_GRADE_CSV_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gradetest {

// The gradebook's rows and cells (RFC 4180: quoted cells may hold commas).
inline std::vector<std::vector<std::string>> Csv(const std::string &text) {
    std::vector<std::vector<std::string>> rows(1);
    std::string cell;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); i++) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', i++;
            else if (c == '"') quoted = false;
            else cell += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(cell), cell.clear();
        } else if (c == '\r') {
        } else if (c == '\n') {
            rows.back().push_back(cell), cell.clear();
            rows.emplace_back();
        } else {
            cell += c;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}

inline std::string Cell(const std::string &csv, const std::string &student, const std::string &column) {
    auto rows = Csv(csv);
    size_t col = 0;
    while (col < rows[0].size() && rows[0][col] != column) col++;
    if (col == rows[0].size()) {
        ADD_FAILURE() << "no column " << column << " in " << csv;
        return "<no column>";
    }
    for (auto &r : rows)
        if (!r.empty() && r[0] == student && col < r.size()) return r[col];
    ADD_FAILURE() << "no row " << student << " in " << csv;
    return "<no row>";
}

// csv with one cell set, as a spreadsheet saves it.
inline std::string SetCell(const std::string &csv, const std::string &student, const std::string &column,
                    const std::string &value) {
    auto rows = Csv(csv);
    size_t col = 0;
    while (col < rows[0].size() && rows[0][col] != column) col++;
    std::string out;
    for (auto &r : rows) {
        if (r[0] == student) r[col] = value;
        for (size_t i = 0; i < r.size(); i++) {
            std::string c = r[i];
            if (c.find_first_of(",\"\n") != std::string::npos) {
                std::string q = "\"";
                for (char ch : c) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
                c = q + "\"";
            }
            out += (i ? "," : "") + c;
        }
        out += "\r\n";
    }
    return out;
}

}  // namespace gradetest

#endif
