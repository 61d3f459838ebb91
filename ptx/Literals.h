// Literals (`0x1F`, `0f3F800000`, `1.5`, `10U`) and integer constant
// expressions of PTX, read the same way by both front ends.
#pragma once

#include "ptx/IR.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ptx {

/// Reads an integer literal (decimal, 0x hex, 0b binary, leading-0 octal,
/// optional U suffix, optional leading '-') into an Int operand.
bool readIntLiteral(std::string_view text, Operand &out);
/// Reads `0fXXXXXXXX`, `0dXXXXXXXXXXXXXXXX`, or a decimal float
/// (`1.5`, `1e-3`, optional leading '-') into an F32/F64 operand.
bool readFloatLiteral(std::string_view text, Operand &out);
/// True when `text` starts like a float literal rather than an integer.
bool looksLikeFloat(std::string_view text);
/// Reads an unsigned integer (any base) into `out`; false on overflow/garbage.
bool readUnsigned(std::string_view text, uint64_t &out);

/// One value of a PTX integer constant expression; `isUnsigned` follows C
/// (a U suffix or an unsigned operand makes the result unsigned).
struct ConstValue {
  int64_t value = 0;
  bool isUnsigned = false;
};
/// Applies a binary operator of PTX constant expressions (C's operators and
/// precedence: * / % + - << >> < > <= >= == != & ^ | && ||). False with
/// `error` set on division by zero or an unknown operator.
bool evalConstBinary(std::string_view op, ConstValue a, ConstValue b, ConstValue &out, std::string &error);
/// Applies a unary operator: - ! ~ +.
bool evalConstUnary(char op, ConstValue a, ConstValue &out);
/// Binding strength of a binary operator (higher binds tighter), 0 if none.
int constBinaryPrecedence(std::string_view op);
/// The Int operand holding a computed constant expression value.
Operand constOperand(ConstValue v);

/// An initializer element holding the literal or constant `op`.
InitItem initItemOf(const Operand &op);

} // namespace ptx
