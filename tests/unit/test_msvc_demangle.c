/* SPDX-License-Identifier: MIT */
/* The MSVC name demangler (formats/windows/msvc_demangle.c): every decorated public of crash.pdb
 * (getsentry/symbolic's listing) against the name Breakpad's dump_syms gives the function at
 * the same address, up to its parameter list; then names it must refuse, and bounds. */
#include <string.h>

#include "windows/msvc_demangle.h"
#include "unit.h"

static void test_breakpad(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "?RequestDump@CrashGenerationClient@google_breakpad@@QAE_NPAU_EXCEPTION_POINTERS@@PAUMDRawAssertionInfo@@@Z",
		  "google_breakpad::CrashGenerationClient::RequestDump" },
		{ "??1?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@QAE@XZ",
		  "std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::~basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >" },
		{ "?assign@?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@QAEAAV12@QB_WI@Z",
		  "std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::assign" },
		{ "?_Xlen@?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@SAXXZ",
		  "std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::_Xlen" },
		{ "??4?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@QAEAAV01@$$QAV01@@Z",
		  "std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::operator=" },
		{ "?Initialize@ExceptionHandler@google_breakpad@@AAEXABV?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@P6A_NPAXPAU_EXCEPTION_POINTERS@@PAUMDRawAssertionInfo@@@ZP6A_NPB_W5123_N@Z1HW4_MINIDUMP_TYPE@@51PAVCrashGenerationClient@2@PBUCustomClientInfo@2@@Z",
		  "google_breakpad::ExceptionHandler::Initialize" },
		{ "??1ExceptionHandler@google_breakpad@@QAE@XZ",
		  "google_breakpad::ExceptionHandler::~ExceptionHandler" },
		{ "?ExceptionHandlerThreadMain@ExceptionHandler@google_breakpad@@CGKPAX@Z",
		  "google_breakpad::ExceptionHandler::ExceptionHandlerThreadMain" },
		{ "??0AutoExceptionHandler@google_breakpad@@QAE@XZ",
		  "google_breakpad::AutoExceptionHandler::AutoExceptionHandler" },
		{ "??1AutoExceptionHandler@google_breakpad@@QAE@XZ",
		  "google_breakpad::AutoExceptionHandler::~AutoExceptionHandler" },
		{ "?HandleException@ExceptionHandler@google_breakpad@@CGJPAU_EXCEPTION_POINTERS@@@Z",
		  "google_breakpad::ExceptionHandler::HandleException" },
		{ "?HandleInvalidParameter@ExceptionHandler@google_breakpad@@CAXPB_W00II@Z",
		  "google_breakpad::ExceptionHandler::HandleInvalidParameter" },
		{ "?HandlePureVirtualCall@ExceptionHandler@google_breakpad@@CAXXZ",
		  "google_breakpad::ExceptionHandler::HandlePureVirtualCall" },
		{ "?WriteMinidumpOnHandlerThread@ExceptionHandler@google_breakpad@@AAE_NPAU_EXCEPTION_POINTERS@@PAUMDRawAssertionInfo@@@Z",
		  "google_breakpad::ExceptionHandler::WriteMinidumpOnHandlerThread" },
		{ "?WriteMinidumpWithException@ExceptionHandler@google_breakpad@@AAE_NKPAU_EXCEPTION_POINTERS@@PAUMDRawAssertionInfo@@@Z",
		  "google_breakpad::ExceptionHandler::WriteMinidumpWithException" },
		{ "?MinidumpWriteDumpCallback@ExceptionHandler@google_breakpad@@CGHPAXQAU_MINIDUMP_CALLBACK_INPUT@@PAU_MINIDUMP_CALLBACK_OUTPUT@@@Z",
		  "google_breakpad::ExceptionHandler::MinidumpWriteDumpCallback" },
		{ "?WriteMinidumpWithExceptionForProcess@ExceptionHandler@google_breakpad@@AAE_NKPAU_EXCEPTION_POINTERS@@PAUMDRawAssertionInfo@@PAX_N@Z",
		  "google_breakpad::ExceptionHandler::WriteMinidumpWithExceptionForProcess" },
		{ "?UpdateNextID@ExceptionHandler@google_breakpad@@AAEXXZ",
		  "google_breakpad::ExceptionHandler::UpdateNextID" },
		{ "??$emplace_back@PAVExceptionHandler@google_breakpad@@@?$vector@PAVExceptionHandler@google_breakpad@@V?$allocator@PAVExceptionHandler@google_breakpad@@@std@@@std@@QAEX$$QAPAVExceptionHandler@google_breakpad@@@Z",
		  "std::vector<google_breakpad::ExceptionHandler *,std::allocator<google_breakpad::ExceptionHandler *> >::emplace_back<google_breakpad::ExceptionHandler *>" },
		{ "??1?$scoped_ptr@VCrashGenerationClient@google_breakpad@@@google_breakpad@@QAE@XZ",
		  "google_breakpad::scoped_ptr<google_breakpad::CrashGenerationClient>::~scoped_ptr<google_breakpad::CrashGenerationClient>" },
		{ "??1?$list@UAppMemory@google_breakpad@@V?$allocator@UAppMemory@google_breakpad@@@std@@@std@@QAE@XZ",
		  "std::list<google_breakpad::AppMemory,std::allocator<google_breakpad::AppMemory> >::~list<google_breakpad::AppMemory,std::allocator<google_breakpad::AppMemory> >" },
		{ "??_GCrashGenerationClient@google_breakpad@@QAEPAXI@Z",
		  "google_breakpad::CrashGenerationClient::`scalar deleting destructor'" },
		{ "?_Xrange@?$vector@PAVExceptionHandler@google_breakpad@@V?$allocator@PAVExceptionHandler@google_breakpad@@@std@@@std@@CAXXZ",
		  "std::vector<google_breakpad::ExceptionHandler *,std::allocator<google_breakpad::ExceptionHandler *> >::_Xrange" },
		{ "?_Xlength@?$vector@PAVExceptionHandler@google_breakpad@@V?$allocator@PAVExceptionHandler@google_breakpad@@@std@@@std@@CAXXZ",
		  "std::vector<google_breakpad::ExceptionHandler *,std::allocator<google_breakpad::ExceptionHandler *> >::_Xlength" },
		{ "?_Buynode0@?$_List_alloc@U?$_List_base_types@UAppMemory@google_breakpad@@V?$allocator@UAppMemory@google_breakpad@@@std@@@std@@@std@@QAEPAU?$_List_node@UAppMemory@google_breakpad@@PAX@2@PAU32@0@Z",
		  "std::_List_alloc<std::_List_base_types<google_breakpad::AppMemory,std::allocator<google_breakpad::AppMemory> > >::_Buynode0" },
		{ "??$_Buynode@ABUAppMemory@google_breakpad@@@?$_List_buy@UAppMemory@google_breakpad@@V?$allocator@UAppMemory@google_breakpad@@@std@@@std@@QAEPAU?$_List_node@UAppMemory@google_breakpad@@PAX@1@PAU21@0ABUAppMemory@google_breakpad@@@Z",
		  "std::_List_buy<google_breakpad::AppMemory,std::allocator<google_breakpad::AppMemory> >::_Buynode<google_breakpad::AppMemory const &>" },
		{ "?GUIDToWString@GUIDString@google_breakpad@@SA?AV?$basic_string@_WU?$char_traits@_W@std@@V?$allocator@_W@2@@std@@PAU_GUID@@@Z",
		  "google_breakpad::GUIDString::GUIDToWString" },
		{ "??2@YAPAXI@Z",
		  "operator new" },
		{ "??3@YAXPAXI@Z",
		  "operator delete" },
		{ "??3@YAXPAX@Z",
		  "operator delete" },
		{ "??0bad_alloc@std@@QAE@ABV01@@Z",
		  "std::bad_alloc::bad_alloc" },
		{ "??0bad_alloc@std@@QAE@XZ",
		  "std::bad_alloc::bad_alloc" },
		{ "??0bad_array_new_length@std@@QAE@ABV01@@Z",
		  "std::bad_array_new_length::bad_array_new_length" },
		{ "??0bad_array_new_length@std@@QAE@XZ",
		  "std::bad_array_new_length::bad_array_new_length" },
		{ "??0exception@std@@QAE@ABV01@@Z",
		  "std::exception::exception" },
		{ "?__scrt_throw_std_bad_alloc@@YAXXZ",
		  "__scrt_throw_std_bad_alloc" },
		{ "?__scrt_throw_std_bad_array_new_length@@YAXXZ",
		  "__scrt_throw_std_bad_array_new_length" },
		{ "?what@exception@std@@UBEPBDXZ",
		  "std::exception::what" },
		{ "?__scrt_initialize_type_info@@YAXXZ",
		  "__scrt_initialize_type_info" },
		{ "??_Gtype_info@@UAEPAXI@Z",
		  "type_info::`scalar deleting destructor'" },
	};
	char buf[1024];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(sv_msvc_demangle_name(cases[i][0], strlen(cases[i][0]), buf, sizeof(buf)));
		assert_string_equal(buf, cases[i][1]);
	}
}

static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"f", "_f@8", "?", "??", "?f", "?f@", "?$f@H", "??_R0?AVx@@@8", "??_C@_03ABC@abc?$AA@",
		"?f@?1??g@@YAXXZ@4HA", "?f@9@@YAXXZ", "??0@@QAE@XZ", "?x@?$t@P6AXXZ@@2HA",
	};
	char buf[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(sv_msvc_demangle_name(bad[i], strlen(bad[i]), buf, sizeof(buf)));
	/* a buffer too small is a refusal, not a cut name */
	assert_false(sv_msvc_demangle_name("?draw@Widget@ns@@QAEXXZ", 23, buf, 8));
	assert_true(sv_msvc_demangle_name("?draw@Widget@ns@@QAEXXZ", 23, buf, sizeof(buf)));
	assert_string_equal(buf, "ns::Widget::draw");
	/* templates within templates stop at a depth */
	char deep[4096] = "?f@";
	for (int i = 0; i < 40; i++)
		strcat(deep, "?$t@V");
	assert_false(sv_msvc_demangle_name(deep, strlen(deep), buf, sizeof(buf)));
	/* the name alone: a length that stops inside it is not read past */
	assert_false(sv_msvc_demangle_name("?draw@Widget@ns@@QAEXXZ", 8, buf, sizeof(buf)));
	/* integer template arguments, references, const pointers, anonymous namespaces */
	assert_true(sv_msvc_demangle_name("?f@?$arr@H$0BA@@@QAEXXZ", 23, buf, sizeof(buf)));
	assert_string_equal(buf, "arr<int,16>::f");
	assert_true(sv_msvc_demangle_name("?g@?$w@ABVx@@QBD@@QAEXXZ", 24, buf, sizeof(buf)));
	assert_string_equal(buf, "w<x const &,char const * const>::g");
	assert_true(sv_msvc_demangle_name("?h@?A0x1234abcd@@YAXXZ", 22, buf, sizeof(buf)));
	assert_string_equal(buf, "`anonymous namespace'::h");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_breakpad), cmocka_unit_test(test_refused) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
